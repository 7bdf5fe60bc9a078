import type { estypes } from '@elastic/elasticsearch';
import type { IndexedPassage, PassageIdPage, PassageRemoval } from '../engine.js';
import { type BulkAction, REMOVE_SCRIPT, scriptedUpdate } from './writes.js';

/**
 * Comment and attachment texts (ARCHITECTURE 5.20) as child documents of their document in the
 * same index (the `relation` join field, routed to the document's shard), so a search finds a
 * document through them with `has_child` under the document's own filters (query.ts).
 *
 * Removals stay removed, as the Postgres engine's do:
 * - a removed passage keeps a tombstone under its own id (REMOVE_SCRIPT), which the upsert script
 *   below never overwrites;
 * - a removed thread leaves a tombstone under the thread's id, a removed document its own
 *   (writes.ts); upsertPassages reads both with a real-time mget before writing and again after,
 *   and turns a passage whose thread or document was removed meanwhile into a tombstone too.
 */
export const PASSAGE_SCRIPT = [
  'def s = ctx._source; def p = params.passage; def v = params.version;',
  'if (s.removed == true || (s.textVersion != null && v < s.textVersion)) { ctx.op = "noop" } else {',
  '  s.id = p.id; s.workspaceId = p.workspaceId; s.documentId = p.documentId; s.threadId = p.threadId;',
  '  s.passageKind = p.kind; s.text = p.text; s.textVersion = v; s.removed = false;',
  '  s.relation = ["name": "passage", "parent": p.documentId];',
  '}',
].join('\n');

/** A passage written as a child of its document (routed with it), unless older or removed. */
export function passageAction(index: string, passage: IndexedPassage): BulkAction {
  const { version, ...fields } = passage;
  return scriptedUpdate(index, passage.id, PASSAGE_SCRIPT, { passage: fields, version }, true, passage.documentId);
}

/**
 * A tombstone under a passage's or a thread's id (also for ids never indexed: a late create must
 * not bring them back). Written without routing: the index has one shard (index-template.ts), so
 * the passage it replaces is found by its id alone, and the tombstone is no child of anything.
 */
export function passageTombstoneAction(index: string, id: string): BulkAction {
  return scriptedUpdate(index, id, REMOVE_SCRIPT, { id }, true);
}

/** Passages only: documents and tombstones have no passageKind. */
const isPassage: estypes.QueryDslQueryContainer = { exists: { field: 'passageKind' } };

/** The live passages a removal names, by their ids, threads or documents; null when it names none. */
export function passagesOf({
  ids = [],
  threadIds = [],
  documentIds = [],
}: PassageRemoval): estypes.QueryDslQueryContainer | null {
  const should: estypes.QueryDslQueryContainer[] = [];
  if (ids.length > 0) should.push({ terms: { id: [...ids] } });
  if (threadIds.length > 0) should.push({ terms: { threadId: [...threadIds] } });
  if (documentIds.length > 0) should.push({ terms: { documentId: [...documentIds] } });
  if (should.length === 0) return null;
  return { bool: { filter: [isPassage], should, minimum_should_match: 1, must_not: [{ term: { removed: true } }] } };
}

/** The workspaces of the passages a removal names: one terms aggregation, no hits. */
export function passageWorkspacesRequest(index: string, query: estypes.QueryDslQueryContainer): estypes.SearchRequest {
  return {
    index,
    size: 0,
    track_total_hits: false,
    query,
    aggs: { workspaces: { terms: { field: 'workspaceId', size: 1_000 } } },
  };
}

/** A page of passage ids of a kind, ascending, like idPageRequest (query.ts). */
export function passageIdPageRequest(index: string, page: PassageIdPage): estypes.SearchRequest {
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { passageKind: page.kind } }];
  if (page.workspaceId) filter.push({ term: { workspaceId: page.workspaceId } });
  return {
    index,
    size: page.limit,
    track_total_hits: false,
    _source: false,
    query: { bool: { filter, must_not: [{ term: { removed: true } }] } },
    sort: [{ id: 'asc' }],
    ...(page.after !== undefined ? { search_after: [page.after] } : {}),
  };
}
