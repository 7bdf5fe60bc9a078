-- Up Migration

-- Tombstones are pruned by age (events older than the stream keeps can no longer arrive).
CREATE INDEX search_removed_documents_removed_at_idx ON search_removed_documents (removed_at);

-- Down Migration
DROP INDEX search_removed_documents_removed_at_idx;
