-- Up Migration

-- Document history (ARCHITECTURE 5.16). `revision` counts the stored changes of title, content,
-- icon and cover: 1 at creation, +1 for each, whoever writes (REST, collab save, MCP, restore,
-- import). The triggers below keep it and the history rows, so no write path can forget either.
ALTER TABLE documents ADD COLUMN revision integer NOT NULL DEFAULT 1;
-- Transient inputs of the write that changes the document, set in the same statement: where it
-- comes from (NULL: EDIT) and whose changes it holds (NULL: just last_edited_by; a collab save may
-- hold several people's). The triggers read them and set them back to NULL: never stored.
ALTER TABLE documents ADD COLUMN edit_source text;
ALTER TABLE documents ADD COLUMN edit_authors uuid[];

-- One row: the service writes its REVISION_INTERVAL_S and REVISION_HISTORY here at start, so the
-- trigger reads the same settings whichever replica writes. ("only" is a reserved word: quoted.)
CREATE TABLE revision_settings (
  "only" boolean PRIMARY KEY DEFAULT true CHECK ("only"),
  interval_s integer NOT NULL DEFAULT 300 CHECK (interval_s >= 0),
  history boolean NOT NULL DEFAULT true
);
INSERT INTO revision_settings DEFAULT VALUES;

CREATE TABLE document_revisions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL,
  -- The document's revision this row holds: the last change folded into it.
  revision integer NOT NULL,
  title varchar(500) NOT NULL,
  content text NOT NULL,
  icon varchar(50),
  cover_image_url text,
  word_count integer NOT NULL,
  -- NULL unless named; a named row is never folded into nor pruned. A name given when the latest
  -- row no longer holds the current state is a copy, so two rows may hold one revision.
  name varchar(200),
  source text NOT NULL CHECK (source IN ('EDIT', 'COLLAB', 'MCP', 'RESTORE', 'IMPORT')),
  -- The author of the first change in the row.
  created_by uuid NOT NULL,
  -- Everyone whose changes the row holds, created_by first.
  contributors uuid[] NOT NULL,
  -- The first change folded in: the folding interval counts from it.
  started_at timestamptz NOT NULL DEFAULT now(),
  -- The last change folded in (the API's createdAt).
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Newest first, as the history lists and as the trigger looks up a document's latest row.
CREATE INDEX document_revisions_document_idx ON document_revisions (document_id, revision DESC, created_at DESC);

-- A change of title, content, icon or cover: revision + 1, and (history on) fold it into the
-- document's latest row when that row holds the revision just replaced, is unnamed, has the same
-- source (not a restore or import, which always stand alone), already counts every author of
-- this write among its contributors and began less than interval_s ago; else a new row. It runs
-- under the row lock of the UPDATE, so a document's history rows are written one write at a time.
CREATE FUNCTION document_revisions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  settings revision_settings%ROWTYPE;
  authors uuid[];
  write_source text;
  last document_revisions%ROWTYPE;
BEGIN
  IF NEW.title IS DISTINCT FROM OLD.title OR NEW.content IS DISTINCT FROM OLD.content
     OR NEW.icon IS DISTINCT FROM OLD.icon OR NEW.cover_image_url IS DISTINCT FROM OLD.cover_image_url THEN
    NEW.revision := OLD.revision + 1;
    SELECT * INTO settings FROM revision_settings;
    IF settings.history IS DISTINCT FROM false THEN
      authors := coalesce(nullif(NEW.edit_authors, '{}'), ARRAY[NEW.last_edited_by]);
      write_source := coalesce(NEW.edit_source, 'EDIT');
      SELECT * INTO last FROM document_revisions WHERE document_id = NEW.id
        ORDER BY revision DESC, created_at DESC LIMIT 1;
      IF FOUND AND settings.interval_s > 0 AND last.revision = OLD.revision AND last.name IS NULL
         AND last.source = write_source AND write_source NOT IN ('RESTORE', 'IMPORT')
         AND authors <@ last.contributors AND now() - last.started_at < make_interval(secs => settings.interval_s) THEN
        UPDATE document_revisions SET revision = NEW.revision, title = NEW.title, content = NEW.content,
          icon = NEW.icon, cover_image_url = NEW.cover_image_url, word_count = NEW.word_count, created_at = now()
        WHERE id = last.id;
      ELSE
        INSERT INTO document_revisions (document_id, workspace_id, revision, title, content, icon, cover_image_url,
          word_count, source, created_by, contributors)
        VALUES (NEW.id, NEW.workspace_id, NEW.revision, NEW.title, NEW.content, NEW.icon, NEW.cover_image_url,
          NEW.word_count, write_source, authors[1], authors);
      END IF;
    END IF;
  END IF;
  NEW.edit_source := NULL;
  NEW.edit_authors := NULL;
  RETURN NEW;
END $$;

-- Creation: the first row (revision 1). It is written after the insert (its foreign key needs the
-- document); an insert that named its source then clears it, through the update trigger above.
CREATE FUNCTION document_revisions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT history FROM revision_settings) IS DISTINCT FROM false THEN
    INSERT INTO document_revisions (document_id, workspace_id, revision, title, content, icon, cover_image_url,
      word_count, source, created_by, contributors)
    VALUES (NEW.id, NEW.workspace_id, NEW.revision, NEW.title, NEW.content, NEW.icon, NEW.cover_image_url,
      NEW.word_count, coalesce(NEW.edit_source, 'EDIT'), NEW.created_by, ARRAY[NEW.created_by]);
  END IF;
  IF NEW.edit_source IS NOT NULL OR NEW.edit_authors IS NOT NULL THEN
    UPDATE documents SET edit_source = NULL, edit_authors = NULL WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER documents_revisions_updated BEFORE UPDATE ON documents
  FOR EACH ROW EXECUTE FUNCTION document_revisions_updated();
CREATE TRIGGER documents_revisions_inserted AFTER INSERT ON documents
  FOR EACH ROW EXECUTE FUNCTION document_revisions_inserted();

-- Every existing document starts its history with its current state.
INSERT INTO document_revisions (document_id, workspace_id, revision, title, content, icon, cover_image_url,
  word_count, source, created_by, contributors, started_at, created_at)
SELECT id, workspace_id, 1, title, content, icon, cover_image_url, word_count, 'EDIT', last_edited_by,
  ARRAY[last_edited_by], updated_at, updated_at
FROM documents;

-- Down Migration
DROP TRIGGER documents_revisions_inserted ON documents;
DROP TRIGGER documents_revisions_updated ON documents;
DROP FUNCTION document_revisions_inserted();
DROP FUNCTION document_revisions_updated();
DROP TABLE document_revisions;
DROP TABLE revision_settings;
ALTER TABLE documents DROP COLUMN edit_authors;
ALTER TABLE documents DROP COLUMN edit_source;
ALTER TABLE documents DROP COLUMN revision;
