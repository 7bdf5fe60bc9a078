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
}

/** A change to some fields of indexed documents (move, archive, restore) without their text. */
export interface DocumentPatch {
  id: string;
  parentId?: string | null;
  title?: string;
  icon?: string | null;
  archived?: boolean;
  version: number;
}

export interface SearchQuery {
  workspaceId: string;
  /** What the user typed (websearch syntax: quotes, `-word`, `or`); already length-checked. */
  query: string;
  /** 1..50 */
  limit: number;
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
  matchField: 'title' | 'content';
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
  /** Best first; never archived documents, never another workspace's. */
  search(query: SearchQuery): Promise<SearchHit[]>;
  /** Throws when the engine cannot answer (readiness check). */
  health(): Promise<void>;
  close(): Promise<void>;
}
