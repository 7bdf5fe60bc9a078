-- Up Migration

-- The archived list (GET /documents/archived): the documents archived themselves (each one is its
-- own archive root), newest first, without reading the workspace's other rows; and the count of
-- what each archiving hid, without walking the subtree.
CREATE INDEX documents_archive_roots_idx ON documents (workspace_id, updated_at DESC, id) WHERE archive_root_id = id;
CREATE INDEX documents_archived_by_root_idx ON documents (archive_root_id) WHERE archive_root_id IS NOT NULL;

-- Down Migration
DROP INDEX documents_archived_by_root_idx;
DROP INDEX documents_archive_roots_idx;
