-- Up Migration

-- One counter per workspace, bumped in the same statement as any write to its documents: a tree
-- answer built under one value is reused until the value moves, on every replica (the tree of
-- 10,000 documents is then built once per change, not once per read). Statement triggers with
-- transition tables: a batch insert or a subtree archive bumps a workspace once. Workspaces are
-- locked in id order, so two statements touching the same workspaces cannot deadlock here.
CREATE TABLE workspace_tree_versions (
  workspace_id uuid PRIMARY KEY,
  version bigint NOT NULL
);

CREATE FUNCTION bump_workspace_tree_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workspace_tree_versions AS v (workspace_id, version)
  SELECT DISTINCT workspace_id, 1 FROM changed_rows ORDER BY workspace_id
  ON CONFLICT (workspace_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER documents_tree_version_insert AFTER INSERT ON documents
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_workspace_tree_versions();
CREATE TRIGGER documents_tree_version_update AFTER UPDATE ON documents
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_workspace_tree_versions();
CREATE TRIGGER documents_tree_version_delete AFTER DELETE ON documents
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_workspace_tree_versions();

-- Down Migration
DROP TRIGGER documents_tree_version_delete ON documents;
DROP TRIGGER documents_tree_version_update ON documents;
DROP TRIGGER documents_tree_version_insert ON documents;
DROP FUNCTION bump_workspace_tree_versions();
DROP TABLE workspace_tree_versions;
