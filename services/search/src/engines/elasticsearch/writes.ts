import type { estypes } from '@elastic/elasticsearch';
import type { DocumentPatch, IndexedDocument } from '../engine.js';

/**
 * Every write (upsert and patch) is a scripted update guarded by the `version` stored in the
 * document: the script turns itself into a no-op when the stored version is newer than the
 * write's. Upserts and patches compare against the same number, so an older event can never undo
 * a newer one, whichever of them arrives first.
 *
 * Why not `version_type: external_gte` on the upserts: a patch has no text, so it has to be an
 * update, and the update API only knows internal versions (it adds 1 to `_version`). After
 * upsert@1000 and patch(archived)@2000 the stored `_version` would be 1001, and a late
 * upsert@1500 (older than the patch) would pass the external check and un-archive the document.
 * Keeping the version in the source and checking it in the script has no such gap, and ES runs the
 * read-check-write of one update atomically per document (retrying it on a concurrent change).
 */
export const GUARDED_WRITE_SCRIPT =
  'if (ctx._source.version != null && ctx._source.version > params.version) { ctx.op = "noop" } ' +
  'else { ctx._source.putAll(params.doc) }';

/** Concurrent writes to one document are re-run this many times before the item fails. */
export const RETRY_ON_CONFLICT = 5;

/** Bulk requests are cut so that none carries more than this many JSON characters or actions. */
export const BULK_MAX_CHARS = 8 * 1024 * 1024;
export const BULK_MAX_ACTIONS = 500;

type BulkLine = Record<string, unknown>;

/** One action of a bulk request: the action line and, except for deletes, its body line. */
export type BulkAction = [BulkLine] | [BulkLine, BulkLine];

function guardedUpdate(
  index: string,
  id: string,
  doc: Record<string, unknown>,
  version: number,
  create: boolean,
): BulkAction {
  const body: BulkLine = { script: { source: GUARDED_WRITE_SCRIPT, lang: 'painless', params: { doc, version } } };
  if (create) {
    // The script also runs for a new document (on an empty source), so one path decides both.
    body.scripted_upsert = true;
    body.upsert = {};
  }
  return [{ update: { _index: index, _id: id, retry_on_conflict: RETRY_ON_CONFLICT } }, body];
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
    version: document.version,
  };
  return guardedUpdate(index, document.id, doc, document.version, true);
}

export function patchAction(index: string, patch: DocumentPatch): BulkAction {
  const doc: Record<string, unknown> = { version: patch.version };
  if (patch.parentId !== undefined) doc.parentId = patch.parentId;
  if (patch.title !== undefined) doc.title = patch.title;
  if (patch.icon !== undefined) doc.icon = patch.icon;
  if (patch.archived !== undefined) doc.archived = patch.archived;
  // No upsert: a patch for a document the index does not hold answers 404 and is ignored.
  return guardedUpdate(index, patch.id, doc, patch.version, false);
}

export function deleteAction(index: string, id: string): BulkAction {
  return [{ delete: { _index: index, _id: id } }];
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

/**
 * The items of a bulk answer that failed. Not failures: a guarded write that did nothing
 * (`result: noop`, an older version), a patch of a document the index does not hold
 * (404 `document_missing_exception`), a delete of one it does not hold (404 `not_found`).
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
