import type { estypes } from '@elastic/elasticsearch';
import type { DocumentPatch, IndexedDocument } from '../engine.js';

/**
 * Every write is a scripted update: Elasticsearch runs the script's read-check-write atomically per
 * document (re-running it on a concurrent change, `retry_on_conflict`). The scripts keep the same
 * versions the Postgres engine keeps, so both engines give one results contract:
 * - `textVersion` guards the text (title, plainText), `stateVersion` the state (parentId, icon,
 *   archived). An upsert applies each part whose version is not older than the stored one, so an
 *   archive that overtook an update keeps the document archived and still takes the update's text.
 * - `removed: true` is a tombstone: a late create or update of a deleted document does nothing.
 *
 * Why not `version_type: external_gte`: Elasticsearch keeps one `_version` per document, and a
 * patch (no text) has to be an update, which only knows internal versions (it adds 1 to
 * `_version`). After upsert@1000 and patch(archived)@2000 `_version` would be 1001, and a late
 * upsert@1500 would pass the external check and un-archive the document. One external version
 * also cannot say "take the text, keep the newer state".
 */
export const UPSERT_SCRIPT = [
  'def s = ctx._source; def d = params.doc; def v = params.version;',
  'boolean text = s.textVersion == null || v >= s.textVersion;',
  'boolean state = s.stateVersion == null || v >= s.stateVersion;',
  // Like the Postgres engine: the creator is kept once known, the last change only moves forward.
  'boolean author = d.createdBy != null && d.createdBy != s.createdBy;',
  'boolean later = d.updatedAt != null && (s.updatedAt == null || d.updatedAt > s.updatedAt);',
  'if (s.removed == true || (!text && !state && !author && !later)) { ctx.op = "noop" } else {',
  '  s.id = d.id; s.workspaceId = d.workspaceId; s.removed = false; s.relation = "document";',
  '  if (author) { s.createdBy = d.createdBy }',
  '  if (later) { s.updatedAt = d.updatedAt }',
  '  if (text) { s.title = d.title; s.plainText = d.plainText; s.textVersion = v }',
  '  if (state) { s.parentId = d.parentId; s.icon = d.icon; s.archived = d.archived; s.stateVersion = v }',
  '}',
].join('\n');

export const PATCH_SCRIPT = [
  'def s = ctx._source; def v = params.version;',
  'boolean state = s.stateVersion == null || v >= s.stateVersion;',
  'boolean text = params.title != null && (s.textVersion == null || v >= s.textVersion);',
  'if (s.removed == true || (!text && !state)) { ctx.op = "noop" } else {',
  '  if (state) { s.putAll(params.state); s.stateVersion = v }',
  '  if (text) { s.title = params.title; s.textVersion = v }',
  '  if (params.updatedAt != null && (s.updatedAt == null || params.updatedAt > s.updatedAt)) { s.updatedAt = params.updatedAt }',
  '}',
].join('\n');

/** Keeps the id (and workspace) only, so the tombstone costs little and matches no search. */
export const REMOVE_SCRIPT = [
  'def ws = ctx._source.workspaceId; ctx._source.clear();',
  'ctx._source.id = params.id; ctx._source.removed = true; ctx._source.archived = true;',
  'if (ws != null) { ctx._source.workspaceId = ws }',
].join('\n');

/** Concurrent writes to one document are re-run this many times before the item fails. */
export const RETRY_ON_CONFLICT = 5;

/** Bulk requests are cut so that none carries more than this many JSON characters or actions. */
export const BULK_MAX_CHARS = 8 * 1024 * 1024;
export const BULK_MAX_ACTIONS = 500;

type BulkLine = Record<string, unknown>;

/** One action of a bulk request: the action line and its body line. */
export type BulkAction = [BulkLine, BulkLine];

export function scriptedUpdate(
  index: string,
  id: string,
  source: string,
  params: Record<string, unknown>,
  create: boolean,
  routing?: string,
): BulkAction {
  const body: BulkLine = { script: { source, lang: 'painless', params } };
  if (create) {
    // The script also runs for a new document (on an empty source), so one path decides both.
    body.scripted_upsert = true;
    body.upsert = {};
  }
  const meta: BulkLine = { _index: index, _id: id, retry_on_conflict: RETRY_ON_CONFLICT };
  if (routing !== undefined) meta.routing = routing;
  return [{ update: meta }, body];
}

export function upsertAction(index: string, document: IndexedDocument): BulkAction {
  const doc = {
    id: document.id,
    workspaceId: document.workspaceId,
    parentId: document.parentId,
    title: document.title,
    icon: document.icon,
    plainText: document.plainText,
    archived: document.archived,
    createdBy: document.createdBy,
    updatedAt: document.updatedAt,
  };
  return scriptedUpdate(index, document.id, UPSERT_SCRIPT, { doc, version: document.version }, true);
}

export function patchAction(index: string, patch: DocumentPatch): BulkAction {
  const state: Record<string, unknown> = {};
  if (patch.parentId !== undefined) state.parentId = patch.parentId;
  if (patch.icon !== undefined) state.icon = patch.icon;
  if (patch.archived !== undefined) state.archived = patch.archived;
  const params = { state, title: patch.title ?? null, updatedAt: patch.updatedAt ?? null, version: patch.version };
  // No upsert: a patch for a document the index does not hold answers 404 and is ignored.
  return scriptedUpdate(index, patch.id, PATCH_SCRIPT, params, false);
}

/** A tombstone, written even for an id the index never held (its create may still be on the way). */
export function removeAction(index: string, id: string): BulkAction {
  return scriptedUpdate(index, id, REMOVE_SCRIPT, { id }, true);
}

/** Cuts actions into bulk requests (NDJSON operation lists) under the size and count limits. */
export function bulkBatches(actions: readonly BulkAction[]): BulkLine[][] {
  const batches: BulkLine[][] = [];
  let lines: BulkLine[] = [];
  let chars = 0;
  let count = 0;
  for (const action of actions) {
    const size = action.reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0);
    if (count > 0 && (chars + size > BULK_MAX_CHARS || count >= BULK_MAX_ACTIONS)) {
      batches.push(lines);
      lines = [];
      chars = 0;
      count = 0;
    }
    lines.push(...action);
    chars += size;
    count += 1;
  }
  if (count > 0) batches.push(lines);
  return batches;
}

/** A bulk item Elasticsearch refused for a reason that is not "nothing to do". */
export interface FailedBulkItem {
  id: string;
  action: string;
  status: number;
  type: string;
  reason: string;
}

export class ElasticsearchBulkError extends Error {
  constructor(readonly failures: FailedBulkItem[]) {
    const first = failures
      .slice(0, 3)
      .map((f) => `${f.action} ${f.id}: ${f.status} ${f.type} (${f.reason})`)
      .join('; ');
    super(`Elasticsearch refused ${failures.length} bulk item(s): ${first}`);
    this.name = 'ElasticsearchBulkError';
  }
}

/** The ids of the updates (patches) of a bulk answer that found no document (404 `document_missing_exception`). */
export function missingDocuments(response: estypes.BulkResponse): string[] {
  if (!response.errors) return [];
  const ids: string[] = [];
  for (const item of response.items) {
    const result = item.update;
    if (result?.status === 404 && result.error?.type === 'document_missing_exception') ids.push(String(result._id));
  }
  return ids;
}

/**
 * The items of a bulk answer that failed. Not failures: a guarded write that did nothing
 * (`result: noop`: an older version, or a removed document), a patch of a document the index
 * does not hold (404 `document_missing_exception`), a delete of one it does not hold (404).
 * Everything else fails the whole call, so the event is redelivered; the writes are idempotent,
 * so applying the items that did succeed again is harmless. A 409 here means the document kept
 * changing under `retry_on_conflict` retries, not that this write is older (the script decides
 * that without a conflict), so it is retried too.
 */
export function failedItems(response: estypes.BulkResponse): FailedBulkItem[] {
  if (!response.errors) return [];
  const failures: FailedBulkItem[] = [];
  for (const item of response.items) {
    for (const [action, result] of Object.entries(item)) {
      if (!result || (result.status >= 200 && result.status < 300)) continue;
      if (result.status === 404 && (action === 'delete' || result.error?.type === 'document_missing_exception')) {
        continue;
      }
      failures.push({
        id: String(result._id ?? ''),
        action,
        status: result.status,
        type: result.error?.type ?? 'unknown',
        reason: result.error?.reason ?? '',
      });
    }
  }
  return failures;
}
