import { keyOf, LocalCache } from '@wiki/cache';
import type { PreparedPool } from '@wiki/db';
import type { SearchEngine, SearchPage, SearchQuery } from './engine.js';

/** Answers remembered at most; the least recently used goes first (answers of old versions too). */
const MAX_ANSWERS = 1_000;

/** The workspace's counter (migrations/0007): no row is version 0. */
const READ_VERSION = {
  name: 'search_workspace_version_v1',
  text: 'SELECT version::text AS version FROM search_workspace_versions WHERE workspace_id = $1',
};
/** Bumps several workspaces' counters, locking their rows in one order so two writers cannot deadlock. */
const BUMP_VERSIONS = {
  name: 'search_bump_workspace_versions_v1',
  text: `INSERT INTO search_workspace_versions AS v (workspace_id, version)
    SELECT w, 1 FROM unnest($1::uuid[]) AS w ORDER BY w
    ON CONFLICT (workspace_id) DO UPDATE SET version = v.version + 1`,
};

/**
 * The engine, with the answers of repeated searches remembered until the workspace's part of the
 * index changes. Every write through this engine bumps the counters of the workspaces it touched
 * (search_workspace_versions) after it lands; a search reads its workspace's counter (one small
 * prepared statement instead of ranking every match again) and reuses an answer only if it was
 * made under the same value, so replicas and the reindex never serve an answer older than the
 * workspace's index, and a write in one workspace leaves every other workspace's answers valid.
 * Between a write and its bump, a search may still get the answer of a moment before, as it would
 * have without the cache had it come a moment earlier.
 */
export function withAnswerCache(engine: SearchEngine, reads: PreparedPool, maxAnswers = MAX_ANSWERS): SearchEngine {
  const answers = new LocalCache<SearchPage>({ maxEntries: maxAnswers });

  async function bump(workspaceIds: Iterable<string>): Promise<void> {
    const list = [...new Set(workspaceIds)];
    if (list.length > 0) await reads.query({ ...BUMP_VERSIONS, values: [list] });
  }

  async function search(query: SearchQuery): Promise<SearchPage> {
    const { rows } = await reads.query<{ version: string }>({ ...READ_VERSION, values: [query.workspaceId] });
    // The version is part of the key: answers of an older one are never found again, and age out.
    const key = keyOf(
      query.workspaceId,
      rows[0]?.version ?? '0',
      String(query.limit),
      String(query.offset ?? 0),
      query.parentId ?? '',
      query.authorId ?? '',
      String(query.updatedAfter ?? ''),
      String(query.updatedBefore ?? ''),
      query.in?.join(',') ?? '',
      query.query,
    );
    // The same search arriving while it is being answered waits for that answer.
    return answers.getOrLoad(key, () => engine.search(query));
  }

  return {
    name: engine.name,
    async upsert(documents) {
      await engine.upsert(documents);
      await bump(documents.map((d) => d.workspaceId));
    },
    async patch(patches) {
      if (patches.length === 0) return engine.patch(patches);
      // A patch names ids only: their workspaces are read first (a patch never moves a document to another one).
      const touched = await engine.workspacesOf(patches.map((p) => p.id));
      const unknown = await engine.patch(patches);
      await bump(touched);
      return unknown;
    },
    async remove(ids) {
      if (ids.length === 0) return engine.remove(ids);
      // Read before the removal: afterwards the index no longer says where the documents were.
      const touched = await engine.workspacesOf(ids);
      await engine.remove(ids);
      await bump(touched);
    },
    async removeWorkspace(workspaceId) {
      await engine.removeWorkspace(workspaceId);
      await bump([workspaceId]);
    },
    async upsertPassages(passages) {
      await engine.upsertPassages(passages);
      await bump(passages.map((p) => p.workspaceId));
    },
    async removePassages(removal) {
      // Passages of removed documents were found through the documents' workspaces already (remove).
      const touched = await engine.passageWorkspacesOf(removal);
      await engine.removePassages(removal);
      await bump(touched);
    },
    passageWorkspacesOf: (removal) => engine.passageWorkspacesOf(removal),
    listPassageIds: (page) => engine.listPassageIds(page),
    listIds: (page) => engine.listIds(page),
    workspacesOf: (ids) => engine.workspacesOf(ids),
    search,
    health: () => engine.health(),
    close: () => engine.close(),
  };
}
