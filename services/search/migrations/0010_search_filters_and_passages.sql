-- Up Migration

-- The filters of ARCHITECTURE 5.20: the creator (authorId), the last change (updatedAfter/Before)
-- and the tree (parentId: a subtree is walked down parent_id at search time, so it follows moves).
-- Rows written before have no creator until a reindex; their last change is their newest version.
ALTER TABLE search_documents ADD COLUMN created_by uuid, ADD COLUMN updated_at timestamptz;
UPDATE search_documents SET updated_at = to_timestamp(greatest(text_version, state_version) / 1000.0);
CREATE INDEX search_documents_parent_idx ON search_documents (parent_id);

-- The text of comments and of attachments, found with their document. The vectors are made as a
-- document's content is (domain/vector.ts): tsv for the GIN index, rank_tsv small for ts_rank.
-- Removed passages (and removed threads) leave their id in search_removed_documents, the one
-- tombstone table (uuids do not collide), so a late event does not bring them back.
CREATE TABLE search_passages (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('comment', 'attachment')),
  document_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  thread_id uuid,
  text text NOT NULL,
  tsv tsvector NOT NULL,
  rank_tsv tsvector NOT NULL,
  version bigint NOT NULL,
  indexed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_passages_workspace_tsv_idx ON search_passages USING gin (workspace_id, tsv);
CREATE INDEX search_passages_document_idx ON search_passages (document_id);
CREATE INDEX search_passages_thread_idx ON search_passages (thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX search_passages_workspace_kind_idx ON search_passages (workspace_id, kind, id);

-- Down Migration
DROP TABLE search_passages;
DROP INDEX search_documents_parent_idx;
ALTER TABLE search_documents DROP COLUMN updated_at, DROP COLUMN created_by;
