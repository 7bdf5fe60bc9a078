-- Up Migration

-- The GIN indexes lead with the workspace (btree_gin), so that a search intersects the query's
-- postings with its workspace's documents inside the index instead of building a bitmap of the
-- matches of every workspace and filtering it: with 100,000 documents of another workspace in the
-- table, a search in one of 10,000 took ~6 ms of execution with the old indexes, ~2.3 ms with these;
-- a search in the large one costs the same either way (docs/DECISIONS.md, "Fresh searches"). Built
-- once from the existing rows (~2 minutes for 110,000 generated documents on a busy machine).
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX search_documents_workspace_tsv_idx ON search_documents USING gin (workspace_id, tsv);
CREATE INDEX search_documents_workspace_title_tsv_idx ON search_documents USING gin (workspace_id, title_tsv);
DROP INDEX search_documents_tsv_idx;
DROP INDEX search_documents_title_tsv_idx;

-- Down Migration
CREATE INDEX search_documents_tsv_idx ON search_documents USING gin (tsv);
CREATE INDEX search_documents_title_tsv_idx ON search_documents USING gin (title_tsv);
DROP INDEX search_documents_workspace_title_tsv_idx;
DROP INDEX search_documents_workspace_tsv_idx;
