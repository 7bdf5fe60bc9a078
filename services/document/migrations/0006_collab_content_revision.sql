-- Up Migration

-- Counts the content writes that did not come from the collaboration server (REST, MCP). A stored
-- collab state remembers the count it was saved at: one saved before a later REST write is stale
-- and not handed out, and a collab save based on an older count is refused (409), so that an open
-- editor never overwrites a REST edit it has not seen.
ALTER TABLE documents ADD COLUMN content_revision bigint NOT NULL DEFAULT 0;
ALTER TABLE collab_states ADD COLUMN content_revision bigint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE collab_states DROP COLUMN content_revision;
ALTER TABLE documents DROP COLUMN content_revision;
