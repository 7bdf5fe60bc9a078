-- Up Migration

-- The projections fed by events remember the occurredAt of the last event applied to each row: a
-- failing event is retried while later ones go on, so an older event can arrive after a newer one
-- and must then be ignored instead of undoing it. NULL: no event has written the row yet (a
-- read-through, an existing row), so any event may replace it.
ALTER TABLE users ADD COLUMN event_at timestamptz;

-- A deleted thread stays as a tombstone (never open) until its document goes: thread ids are never
-- reused, so a thread_created/resolved/reopened arriving after its thread_deleted must not bring it
-- back. The open-thread count reads is_open alone, and the partial index leaves tombstones out.
ALTER TABLE comment_threads ADD COLUMN event_at timestamptz;
ALTER TABLE comment_threads ADD COLUMN is_deleted boolean NOT NULL DEFAULT false;
ALTER TABLE comment_threads ADD CONSTRAINT comment_threads_deleted_not_open CHECK (NOT (is_deleted AND is_open));

-- Down Migration
DELETE FROM comment_threads WHERE is_deleted;
ALTER TABLE comment_threads DROP CONSTRAINT comment_threads_deleted_not_open;
ALTER TABLE comment_threads DROP COLUMN is_deleted;
ALTER TABLE comment_threads DROP COLUMN event_at;
ALTER TABLE users DROP COLUMN event_at;
