-- Up Migration

-- The history trigger of 0009, made cheaper for the common case, a fold (issue 26's budget: history
-- costs at most 10 % of the edit rate). It reads only the latest row's small columns (a PL/pgSQL
-- row variable detoasts every field, so SELECT * read the whole stored content on every edit), and
-- the fold's UPDATE leaves unchanged fields as they are: a title edit of a long document then
-- keeps the row's content and its TOAST chunks instead of writing the whole text again. And a
-- write that leaves the content alone says so (content_kept, transient like edit_source): comparing
-- a long content with itself reads and decompresses it twice, which cost a third of a title edit
-- of a 56 KB document even with history off. A writer that does not say it gets the comparison.
ALTER TABLE documents ADD COLUMN content_kept boolean;

CREATE OR REPLACE FUNCTION document_revisions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  settings revision_settings%ROWTYPE;
  authors uuid[];
  write_source text;
  last record;
  -- Compared once, and only when the writer may have changed it.
  content_changed boolean := NOT coalesce(NEW.content_kept, false) AND NEW.content IS DISTINCT FROM OLD.content;
BEGIN
  IF NEW.title IS DISTINCT FROM OLD.title OR content_changed
     OR NEW.icon IS DISTINCT FROM OLD.icon OR NEW.cover_image_url IS DISTINCT FROM OLD.cover_image_url THEN
    NEW.revision := OLD.revision + 1;
    SELECT * INTO settings FROM revision_settings;
    IF settings.history IS DISTINCT FROM false THEN
      authors := coalesce(nullif(NEW.edit_authors, '{}'), ARRAY[NEW.last_edited_by]);
      write_source := coalesce(NEW.edit_source, 'EDIT');
      SELECT r.id, r.revision, r.name, r.source, r.contributors, r.started_at INTO last
        FROM document_revisions r WHERE r.document_id = NEW.id
        ORDER BY r.revision DESC, r.created_at DESC LIMIT 1;
      IF FOUND AND settings.interval_s > 0 AND last.revision = OLD.revision AND last.name IS NULL
         AND last.source = write_source AND write_source NOT IN ('RESTORE', 'IMPORT')
         AND authors <@ last.contributors AND now() - last.started_at < make_interval(secs => settings.interval_s) THEN
        -- The row holds OLD's state (its revision is OLD's): only what this write changed is set.
        UPDATE document_revisions SET revision = NEW.revision,
          title = CASE WHEN NEW.title IS DISTINCT FROM OLD.title THEN NEW.title ELSE title END,
          content = CASE WHEN content_changed THEN NEW.content ELSE content END,
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
  NEW.content_kept := NULL;
  RETURN NEW;
END $$;

-- Down Migration
-- The function of 0009 is written again by that migration's own down and up; this one narrows it.
ALTER TABLE documents DROP COLUMN content_kept;
