import { LocalCache } from '@wiki/cache';
import { type DatabasePool, sql, z } from '@wiki/db';
import type { SearchEngine, SearchHit, SearchQuery } from './engine.js';

/** Answers remembered at most; the oldest used goes first. */
const MAX_ANSWERS = 500;

/**
 * The engine, with the answers of repeated searches remembered until the index changes. Every
 * write through this engine bumps one counter in the search database after it lands; a search
 * reads the counter (one small statement instead of ranking every match again) and reuses an
 * answer only if it was made under the same value, so replicas and the reindex never serve an
 * answer older than the index. Between a write and its bump, a search may still get the answer of
 * a moment before, as it would have without the cache had it come a moment earlier.
 */
export function withAnswerCache(engine: SearchEngine, pool: DatabasePool, maxAnswers = MAX_ANSWERS): SearchEngine {
  let answersVersion: string | null = null;
  const answers = new LocalCache<SearchHit[]>({ maxEntries: maxAnswers });

  const bump = async () => {
    await pool.query(sql.unsafe`UPDATE search_index_version SET version = version + 1`);
  };
  async function written<T>(count: number, write: () => Promise<T>): Promise<T> {
    const result = await write();
    if (count > 0) await bump();
    return result;
  }

  async function search(query: SearchQuery): Promise<SearchHit[]> {
    const version = await pool.oneFirst(
      sql.type(z.object({ version: z.string() }))`SELECT version::text AS version FROM search_index_version`,
    );
    if (version !== answersVersion) {
      answers.clear();
      answersVersion = version;
    }
    const key = `${query.workspaceId}\u0000${query.limit}\u0000${query.query}`;
    const remembered = answers.get(key);
    if (remembered) return remembered;
    const hits = await engine.search(query);
    // Another search may have seen a newer counter meanwhile: then this answer is not kept.
    if (version === answersVersion) answers.set(key, hits);
    return hits;
  }

  return {
    name: engine.name,
    upsert: (documents) => written(documents.length, () => engine.upsert(documents)),
    patch: (patches) => written(patches.length, () => engine.patch(patches)),
    remove: (ids) => written(ids.length, () => engine.remove(ids)),
    removeWorkspace: (workspaceId) => written(1, () => engine.removeWorkspace(workspaceId)),
    listIds: (page) => engine.listIds(page),
    search,
    health: () => engine.health(),
    close: () => engine.close(),
  };
}
