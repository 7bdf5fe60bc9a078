/**
 * The contract both search engines (Postgres full-text, Elasticsearch) fulfil, and the one
 * contract test suite runs against (ARCHITECTURE 5.8). Routes and consumers only ever see this.
 *
 * Writes are idempotent and carry a version (the event's `occurredAt` in ms, or the document's
 * `updatedAt` on a reindex), so a redelivered or late event never overwrites a newer state: an
 * engine applies a write only when its version is not older than what it stored for that id.
 */

import type { WholeDocument } from '@wiki/service-client';

/**
 * A document as the document service describes it (libs/service-client WholeDocument) with a version in
 * place of its updatedAt. The plain text is whole (fetched from the document service when an
 * event's was cut). Archived documents stay indexed (restore brings them back) but are never returned.
 */
export interface IndexedDocument extends Omit<WholeDocument, 'updatedAt'> {
  /** Monotonic per document; older writes are ignored. */
  version: number;
  /** When the document last changed (ms since the epoch): the updatedAfter/Before filters. */
  updatedAt: number;
  /** Its creator (the authorId filter); null when the event or peer did not say (older ones). */
  createdBy: string | null;
}

/** A change to some fields of indexed documents (move, archive, restore) without their text. */
export interface DocumentPatch {
  id: string;
  parentId?: string | null;
  title?: string;
  icon?: string | null;
  archived?: boolean;
  /** When the document changed (ms), if the change tells. */
  updatedAt?: number;
  version: number;
}

/** Where a query may match (ARCHITECTURE 5.20 `in`). */
export const SEARCH_FIELDS = ['title', 'content', 'comments', 'attachments'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface SearchQuery {
  workspaceId: string;
  /** What the user typed (websearch syntax: quotes, `-word`, `or`); already length-checked. */
  query: string;
  /** 1..50 */
  limit: number;
  /** Matches skipped before the page (0..SEARCH_MAX_OFFSET); 0 when absent. */
  offset?: number;
  /** Only documents below this one, at any depth (not the document itself). */
  parentId?: string;
  /** Only documents this user created. */
  authorId?: string;
  /** Only documents last updated after this time (exclusive), ms since the epoch. */
  updatedAfter?: number;
  /** Only documents last updated before this time (exclusive), ms since the epoch. */
  updatedBefore?: number;
  /** Where a word may match; every field when absent. Never empty. */
  in?: readonly SearchField[];
}

/** The furthest a page may start: deeper pages cost every match before them, and no one reads that far. */
export const SEARCH_MAX_OFFSET = 1_000;

/** A page of matches and how many documents match in all (before offset and limit). */
export interface SearchPage {
  hits: SearchHit[];
  total: number;
}

/**
 * The text of a comment or of an attachment, searched with its document: found only while the
 * document is (never archived, same workspace, the query's filters apply to the document).
 */
export interface IndexedPassage {
  /** The comment's or the attachment's id. */
  id: string;
  kind: 'comment' | 'attachment';
  documentId: string;
  workspaceId: string;
  /** The comment's thread; null for attachments. */
  threadId: string | null;
  text: string;
  /** Monotonic per passage; older writes are ignored. */
  version: number;
}

/** Passages to remove for good: by their own ids, by thread, or every one of some documents. */
export interface PassageRemoval {
  ids?: readonly string[];
  threadIds?: readonly string[];
  documentIds?: readonly string[];
}

/** A page of indexed passage ids, like IdPage. */
export interface PassageIdPage extends IdPage {
  kind: IndexedPassage['kind'];
}

/** A page of indexed ids (`listIds`): one workspace's or all. */
export interface IdPage {
  workspaceId?: string;
  /** Exclusive; the first page when absent. */
  after?: string;
  limit: number;
}

/** SearchResultResponse of the spec (4.4). */
export interface SearchHit {
  id: string;
  title: string;
  icon: string | null;
  parentId: string | null;
  /** HTML-escaped text with the matched terms wrapped in `<mark>…</mark>` (no other markup). */
  snippet: string;
  matchField: 'title' | 'content' | 'comment' | 'attachment';
  /** With matchField "comment": the thread of the comment that matched. */
  commentThreadId?: string;
  /** With matchField "attachment": the attachment whose text matched. */
  attachmentId?: string;
}

export interface SearchEngine {
  readonly name: 'postgres' | 'elasticsearch';
  /** Creates or replaces documents (each only if its version is not older than the stored one). */
  upsert(documents: readonly IndexedDocument[]): Promise<void>;
  /**
   * Applies field changes to documents already indexed. Answers the ids of the patches it found
   * no document for (never indexed: its creation event failed and waits for a retry, or is older
   * than the stream), so the caller can index those whole; removed documents are not answered.
   */
  patch(patches: readonly DocumentPatch[]): Promise<string[]>;
  /** Removes documents for good (document.deleted); unknown ids are ignored. */
  remove(ids: readonly string[]): Promise<void>;
  /** Removes every document of a workspace (workspace.deleted). */
  removeWorkspace(workspaceId: string): Promise<void>;
  /**
   * The ids the index holds (archived ones too), ascending in the canonical lowercase text order
   * of the uuid (the order Postgres sorts a uuid column in), after `after`, at most `limit`:
   * the only way a reindex can find entries of documents that no longer exist, whatever the engine.
   */
  listIds(query: IdPage): Promise<string[]>;
  /**
   * The workspaces of the documents the index holds among `ids` (removed and unknown ids add
   * none): what a patch or a removal, which name ids only, changes for the answer cache.
   */
  workspacesOf(ids: readonly string[]): Promise<string[]>;
  /** Creates or replaces comment and attachment texts (each only if its version is not older). */
  upsertPassages(passages: readonly IndexedPassage[]): Promise<void>;
  /**
   * Removes passages for good: a late write of a removed passage (or of a comment of a removed
   * thread, or of any passage of a removed document) is ignored.
   */
  removePassages(removal: PassageRemoval): Promise<void>;
  /** The workspaces of the passages a removal would remove (what it changes for the answer cache). */
  passageWorkspacesOf(removal: PassageRemoval): Promise<string[]>;
  /** The passage ids of a kind the index holds, like listIds. */
  listPassageIds(page: PassageIdPage): Promise<string[]>;
  /**
   * Best first, one hit per document (its best field: title, content, then a comment or an
   * attachment); never archived documents, never another workspace's.
   */
  search(query: SearchQuery): Promise<SearchPage>;
  /** Throws when the engine cannot answer (readiness check). */
  health(): Promise<void>;
  close(): Promise<void>;
}
