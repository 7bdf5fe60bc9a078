-- Up Migration

-- How many visible (not archived) children each document has, kept by the triggers below, so that
-- reading a document costs one index lookup here instead of a visit to every child row. The counts
-- live in their own narrow table, not in documents: a creation then locks only its parent's counter
-- row, never the parent document row that archive, delete and move lock (no lock-order cycle with
-- them), and bumping a count rewrites a few bytes instead of a wide document row. A document with no
-- visible child may have no row (count 0).
CREATE TABLE document_child_counts (
  document_id uuid PRIMARY KEY,
  visible_children integer NOT NULL CHECK (visible_children >= 0)
);

INSERT INTO document_child_counts (document_id, visible_children)
SELECT parent_id, count(*) FROM documents WHERE parent_id IS NOT NULL AND NOT is_archived GROUP BY parent_id;

-- Counter rows are always changed in document_id order, so two transactions never wait on each
-- other's counters in a cycle.

CREATE FUNCTION document_child_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO document_child_counts AS c (document_id, visible_children)
  SELECT parent_id, count(*) FROM inserted WHERE parent_id IS NOT NULL AND NOT is_archived
  GROUP BY parent_id ORDER BY parent_id
  ON CONFLICT (document_id) DO UPDATE SET visible_children = c.visible_children + EXCLUDED.visible_children;
  RETURN NULL;
END $$;

CREATE FUNCTION document_child_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An UPDATE ... FROM changes rows in no set order: lock them in order first.
  PERFORM 1 FROM document_child_counts
  WHERE document_id IN (SELECT parent_id FROM deleted WHERE NOT is_archived)
  ORDER BY document_id FOR UPDATE;
  UPDATE document_child_counts c SET visible_children = c.visible_children - gone.n
  FROM (SELECT parent_id, count(*) AS n FROM deleted WHERE parent_id IS NOT NULL AND NOT is_archived GROUP BY parent_id) gone
  WHERE c.document_id = gone.parent_id;
  DELETE FROM document_child_counts WHERE document_id IN (SELECT id FROM deleted);
  RETURN NULL;
END $$;

-- One row whose parent or archived flag changed: it leaves the old parent's count when it was
-- visible there and joins the new parent's when it is visible now.
CREATE FUNCTION document_child_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  leaving uuid := CASE WHEN NOT OLD.is_archived THEN OLD.parent_id END;
  joining uuid := CASE WHEN NOT NEW.is_archived THEN NEW.parent_id END;
BEGIN
  IF leaving IS NOT DISTINCT FROM joining THEN
    RETURN NULL;
  END IF;
  IF joining IS NULL OR (leaving IS NOT NULL AND leaving < joining) THEN
    UPDATE document_child_counts SET visible_children = visible_children - 1 WHERE document_id = leaving;
    leaving := NULL;
  END IF;
  IF joining IS NOT NULL THEN
    INSERT INTO document_child_counts AS c (document_id, visible_children) VALUES (joining, 1)
    ON CONFLICT (document_id) DO UPDATE SET visible_children = c.visible_children + 1;
  END IF;
  IF leaving IS NOT NULL THEN
    UPDATE document_child_counts SET visible_children = visible_children - 1 WHERE document_id = leaving;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER documents_child_counts_inserted AFTER INSERT ON documents
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION document_child_counts_inserted();
CREATE TRIGGER documents_child_counts_deleted AFTER DELETE ON documents
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION document_child_counts_deleted();
-- Row by row, but only for rows whose parent or archived flag changed: content edits never run it.
CREATE TRIGGER documents_child_counts_changed AFTER UPDATE OF parent_id, is_archived ON documents
  FOR EACH ROW WHEN (OLD.parent_id IS DISTINCT FROM NEW.parent_id OR OLD.is_archived IS DISTINCT FROM NEW.is_archived)
  EXECUTE FUNCTION document_child_counts_changed();

-- Down Migration
DROP TRIGGER documents_child_counts_changed ON documents;
DROP TRIGGER documents_child_counts_deleted ON documents;
DROP TRIGGER documents_child_counts_inserted ON documents;
DROP FUNCTION document_child_counts_changed();
DROP FUNCTION document_child_counts_deleted();
DROP FUNCTION document_child_counts_inserted();
DROP TABLE document_child_counts;
