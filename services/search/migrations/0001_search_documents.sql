-- Up Migration

-- unaccent: snippets find where an accent-folded word sits in a long text (the index folds in the
-- service, domain/fold.ts, so that queries and documents fold the same way).
CREATE EXTENSION IF NOT EXISTS unaccent;

-- The searchable copy of each document, written only from document events (and the reindex).
CREATE TABLE search_documents (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  parent_id uuid,
  title text NOT NULL,
  icon text,
  plain_text text NOT NULL,
  archived boolean NOT NULL DEFAULT false,
  -- The title folded, words joined by one space: an exact title match ranks first.
  title_key text NOT NULL,
  -- Title (weights A, B) and content (C, D) lexemes: folded words, their suffixes, CJK bigrams.
  tsv tsvector NOT NULL,
  -- The title's lexemes alone: a title match ranks above content matches and sets matchField.
  title_tsv tsvector NOT NULL,
  -- Versions (ms) of the last write of the text (title, content) and of the state (parent,
  -- archived, icon): a late event never overwrites a newer one, and an archive that overtook an
  -- update does not drop the update's text.
  text_version bigint NOT NULL,
  state_version bigint NOT NULL,
  indexed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX search_documents_tsv_idx ON search_documents USING gin (tsv);
CREATE INDEX search_documents_workspace_idx ON search_documents (workspace_id);

-- Deleted documents, so that a late create or update cannot bring one back into the index.
CREATE TABLE search_removed_documents (
  id uuid PRIMARY KEY,
  removed_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE search_removed_documents;
DROP TABLE search_documents;
