-- Up Migration

-- Events reach the projection out of order (a failed one is retried after later ones). Each row
-- remembers when the event that wrote it happened and takes only events at least as recent; a
-- removal stays as a row without a role, so that a late member.added or a read-through that raced
-- with the removal cannot bring the member back. Rows written by a read-through have no time and
-- give way to any event.
ALTER TABLE membership_projection ALTER COLUMN role DROP NOT NULL;
ALTER TABLE membership_projection ADD COLUMN event_at timestamptz;

-- Archived and deleted workspaces, from workspace.* events: nobody reaches their content through
-- the services that check roles (ARCHITECTURE 5.13). The workspace service itself still lets the
-- owner restore an archived one.
CREATE TABLE workspace_access_projection (
  workspace_id uuid PRIMARY KEY,
  is_archived boolean NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  event_at timestamptz
);

-- Down Migration
DROP TABLE workspace_access_projection;
DELETE FROM membership_projection WHERE role IS NULL;
ALTER TABLE membership_projection DROP COLUMN event_at;
ALTER TABLE membership_projection ALTER COLUMN role SET NOT NULL;
