-- Up Migration

-- A search ranks a bounded set of candidates (engines/postgres.ts): the exact titles, the first
-- title matches and the first content matches. These find the first two without reading the
-- content index or the rows of every content match.
CREATE INDEX search_documents_title_tsv_idx ON search_documents USING gin (title_tsv);
CREATE INDEX search_documents_title_key_idx ON search_documents (workspace_id, title_key);

-- Down Migration
DROP INDEX search_documents_title_key_idx;
DROP INDEX search_documents_title_tsv_idx;
