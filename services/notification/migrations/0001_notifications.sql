-- Up Migration

-- One row per notification of one recipient. Names (actor, workspace, document) are copied in
-- when it is made, so that it shows what was current then without a look-up on every read.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  type text NOT NULL,
  status text NOT NULL DEFAULT 'UNREAD' CHECK (status IN ('UNREAD', 'READ', 'ACTIONED', 'DISMISSED')),
  title text NOT NULL,
  message text NOT NULL,
  actionable boolean NOT NULL DEFAULT false,
  actor_id uuid,
  actor_name text,
  actor_avatar text,
  workspace_id uuid,
  workspace_name text,
  document_id uuid,
  document_title text,
  invitation_id uuid,
  comment_thread_id uuid,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  read_at timestamptz,
  expires_at timestamptz,
  -- What made it, per recipient (the event id, or the invitation for WORKSPACE_INVITATION): a
  -- redelivered or replayed event finds its row and makes no second one.
  source_key text NOT NULL,
  UNIQUE (user_id, source_key)
);
-- Lists and counts: one user's visible rows, newest first.
CREATE INDEX notifications_user_created_idx ON notifications (user_id, created_at DESC) WHERE status <> 'DISMISSED';
CREATE INDEX notifications_invitation_idx ON notifications (invitation_id) WHERE invitation_id IS NOT NULL;
CREATE INDEX notifications_expires_idx ON notifications (expires_at) WHERE expires_at IS NOT NULL;

-- Names shown in notifications, from workspace.* and document.* events (each row keeps the time
-- of the event that wrote it and takes only events at least as recent).
CREATE TABLE workspace_names (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  event_at timestamptz NOT NULL
);
CREATE TABLE document_titles (
  id uuid PRIMARY KEY,
  title text NOT NULL,
  event_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE document_titles;
DROP TABLE workspace_names;
DROP TABLE notifications;
