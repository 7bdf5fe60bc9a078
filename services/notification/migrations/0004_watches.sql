-- Up Migration

-- Who watches which document (ARCHITECTURE 5.18). `watching` false is an explicit unwatch: it is
-- remembered so that automatic watching (creating, editing, commenting) never overrides it; only
-- an explicit watch turns it back on.
CREATE TABLE document_watches (
  document_id uuid NOT NULL,
  user_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  watching boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The debounce, decided here and not in memory (replicas, redeliveries): the time of the latest
  -- edit handled for this watcher (an edit at or before it is a replay and changes nothing), the
  -- time of the edit that last made them a DOCUMENT_UPDATED, and that edit's event id (later edits
  -- inside the window are counted on that notification while it is unread).
  seen_edit_at timestamptz,
  notified_at timestamptz,
  notified_event_id uuid,
  PRIMARY KEY (document_id, user_id)
);
-- member.removed and workspace.deleted drop a member's (or a workspace's) watches.
CREATE INDEX document_watches_workspace_user_idx ON document_watches (workspace_id, user_id);

-- The routes check the caller's membership of the document's workspace: the title projection
-- now keeps it (NULL on rows written before; the document service is asked then).
ALTER TABLE document_titles ADD COLUMN workspace_id uuid;

-- Down Migration
ALTER TABLE document_titles DROP COLUMN workspace_id;
DROP TABLE document_watches;
