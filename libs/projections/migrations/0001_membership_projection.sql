-- Up Migration
-- Local copy of workspace memberships, fed by member.* and workspace.deleted events.
CREATE TABLE membership_projection (
  workspace_id uuid NOT NULL,
  user_id uuid NOT NULL,
  member_id uuid,
  role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER')),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX membership_projection_user_idx ON membership_projection (user_id);

-- Down Migration
DROP TABLE membership_projection;
