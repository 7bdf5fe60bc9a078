-- Up Migration

-- What ts_rank reads (domain/vector.ts rankVector): whole words of the title and of the start of
-- the content, without suffixes, small enough to stay in the row. Ranking thousands of matches then
-- no longer reads and decompresses each document's full vector out of line. Rows written before
-- this column rank as 0 within their tier until they are written again (or `npm run reindex`).
ALTER TABLE search_documents ADD COLUMN rank_tsv tsvector NOT NULL DEFAULT ''::tsvector;
ALTER TABLE search_documents ALTER COLUMN rank_tsv SET STORAGE MAIN;

-- Down Migration
ALTER TABLE search_documents DROP COLUMN rank_tsv;
