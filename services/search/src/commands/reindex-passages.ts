import {
  type AttachmentText,
  type CommentText,
  fetchAttachmentText,
  listAttachmentTexts,
  listCommentTexts,
  type ServiceClient,
} from '@wiki/service-client';
import type { IndexedPassage, SearchEngine } from '../engines/engine.js';

/** Comments asked of the comment service at once (its route takes up to 500). */
const COMMENT_PAGE = 200;
/** Attachment texts asked at once (its route takes up to 100: each text may be long). */
const ATTACHMENT_PAGE = 20;
/** Index ids asked at once while sweeping. */
const SWEEP_PAGE = 1_000;

export interface PassageCounts {
  indexed: number;
  removed: number;
}

/**
 * One kind of passage as its owning service lists it: a page in id order, and whether one id still
 * exists there (asked only for entries the listing skipped).
 */
interface PassageSource<T> {
  kind: IndexedPassage['kind'];
  page(after: string | undefined): Promise<T[]>;
  pageSize: number;
  idOf(item: T): string;
  passageOf(item: T): IndexedPassage;
  exists(id: string): Promise<boolean>;
}

/**
 * The largest uuid below `id` in the order the services page in (the bytes, that is the lowercase
 * hex text): listing after it starts at `id` itself, so it tells whether `id` exists.
 */
export function uuidBefore(id: string): string | undefined {
  const value = BigInt(`0x${id.replaceAll('-', '')}`);
  if (value === 0n) return undefined;
  const hex = (value - 1n).toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function commentSource(peers: ServiceClient, workspaceId: string | undefined): PassageSource<CommentText> {
  const list = (after: string | undefined, limit: number) => listCommentTexts(peers, { workspaceId, after, limit });
  return {
    kind: 'comment',
    page: (after) => list(after, COMMENT_PAGE),
    pageSize: COMMENT_PAGE,
    idOf: (c) => c.commentId,
    passageOf: (c) => ({
      id: c.commentId,
      kind: 'comment',
      documentId: c.documentId,
      workspaceId: c.workspaceId,
      threadId: c.threadId,
      text: c.text,
      // Its last edit: an event of a later edit is newer and wins.
      version: Date.parse(c.updatedAt),
    }),
    exists: async (id) => (await list(uuidBefore(id), 1))[0]?.commentId === id,
  };
}

function attachmentSource(peers: ServiceClient, workspaceId: string | undefined): PassageSource<AttachmentText> {
  return {
    kind: 'attachment',
    page: (after) => listAttachmentTexts(peers, { workspaceId, after, limit: ATTACHMENT_PAGE }),
    pageSize: ATTACHMENT_PAGE,
    idOf: (a) => a.id,
    passageOf: (a) => ({
      id: a.id,
      kind: 'attachment',
      documentId: a.documentId,
      workspaceId: a.workspaceId,
      threadId: null,
      text: a.text,
      // A file's text never changes once extracted: the oldest version, so any event's write stands.
      version: 0,
    }),
    exists: async (id) => (await fetchAttachmentText(peers, id)) !== null,
  };
}

/**
 * Rebuilds one kind of passage from its owning service, as the document pass does: every listed
 * one upserted, and every index entry the listing skipped removed once its service confirms it is
 * gone (one created behind the listing is kept: its event indexed it).
 */
async function reindexKind<T>(
  engine: SearchEngine,
  source: PassageSource<T>,
  workspaceId: string | undefined,
): Promise<PassageCounts> {
  const counts: PassageCounts = { indexed: 0, removed: 0 };
  let cursor: string | undefined;
  const sweep = async (upTo: string | undefined, listed: ReadonlySet<string>) => {
    const skipped: string[] = [];
    for (let from = cursor; ; ) {
      const ids = await engine.listPassageIds({ kind: source.kind, workspaceId, after: from, limit: SWEEP_PAGE });
      const inRange = ids.filter((id) => upTo === undefined || id <= upTo);
      skipped.push(...inRange.filter((id) => !listed.has(id)));
      if (inRange.length < ids.length || ids.length < SWEEP_PAGE) break;
      from = ids.at(-1);
    }
    const gone: string[] = [];
    for (const id of skipped) if (!(await source.exists(id))) gone.push(id);
    await engine.removePassages({ ids: gone });
    counts.removed += gone.length;
  };
  for (;;) {
    const items = await source.page(cursor);
    const last = items.at(-1);
    if (!last) break;
    await engine.upsertPassages(items.map(source.passageOf));
    counts.indexed += items.length;
    await sweep(source.idOf(last), new Set(items.map(source.idOf)));
    cursor = source.idOf(last);
    if (items.length < source.pageSize) break;
  }
  // Everything the index holds after the last listed one.
  await sweep(undefined, new Set());
  return counts;
}

/** Comments, then attachments' texts, of one workspace or of all (ARCHITECTURE 5.20). */
export async function reindexPassages(
  engine: SearchEngine,
  peers: ServiceClient,
  workspaceId: string | undefined,
): Promise<{ comments: PassageCounts; attachments: PassageCounts }> {
  const comments = await reindexKind(engine, commentSource(peers, workspaceId), workspaceId);
  const attachments = await reindexKind(engine, attachmentSource(peers, workspaceId), workspaceId);
  return { comments, attachments };
}
