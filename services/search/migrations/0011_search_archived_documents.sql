-- Up Migration

-- A search's total counts comment and attachment matches without reading each one's document:
-- only the workspace's archived documents are looked up (engines/postgres-search.ts, the count).
CREATE INDEX search_documents_archived_idx ON search_documents (workspace_id) WHERE archived;

-- Down Migration
DROP INDEX search_documents_archived_idx;
