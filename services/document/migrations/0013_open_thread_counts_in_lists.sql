-- Up Migration

-- List items carry their document's open-thread count (the web app's tree shows it), and lists are
-- remembered per workspace version (queries/list-answers.ts): a change of the thread projection
-- moves its workspace's version like a change of its documents does, through the same shards.
CREATE FUNCTION bump_tree_versions_of_threads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  own_shard smallint := (pg_current_xact_id()::text::bigint % 64)::smallint;
BEGIN
  INSERT INTO workspace_tree_versions AS v (workspace_id, shard, version)
  SELECT DISTINCT d.workspace_id, own_shard, 1 FROM changed_rows c JOIN documents d ON d.id = c.document_id
  ORDER BY d.workspace_id
  ON CONFLICT (workspace_id, shard) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER comment_threads_tree_version_insert AFTER INSERT ON comment_thread_projection
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_tree_versions_of_threads();
CREATE TRIGGER comment_threads_tree_version_update AFTER UPDATE ON comment_thread_projection
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_tree_versions_of_threads();
CREATE TRIGGER comment_threads_tree_version_delete AFTER DELETE ON comment_thread_projection
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_tree_versions_of_threads();

-- Down Migration
DROP TRIGGER comment_threads_tree_version_delete ON comment_thread_projection;
DROP TRIGGER comment_threads_tree_version_update ON comment_thread_projection;
DROP TRIGGER comment_threads_tree_version_insert ON comment_thread_projection;
DROP FUNCTION bump_tree_versions_of_threads();
