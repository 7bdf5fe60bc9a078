-- Up Migration

-- Every lexeme the index holds (of any workspace, in byte order), so that a query's last word,
-- matched as a prefix, can be turned into the exact lexemes starting with it: GIN answers an OR of
-- exact lexemes by skipping through their postings, while a prefix match first gathers every
-- posting of every such lexeme into a bitmap (engines/postgres-search.ts). Written before the rows
-- that hold them; never pruned (a lexeme no document holds any more only adds an empty alternative).
CREATE TABLE search_lexemes (
  lexeme text COLLATE "C" PRIMARY KEY
);

-- The lexemes of the rows indexed before this table existed (reads every vector once).
INSERT INTO search_lexemes (lexeme)
SELECT word FROM ts_stat('SELECT tsv FROM search_documents')
ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE search_lexemes;
