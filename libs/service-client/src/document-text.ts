import type { CallOptions, ServiceClient } from './service-client.js';

/**
 * A document with its whole plain text (never cut) and what an index shows beside it, as the
 * document service's `GET /internal/documents/{id}/text` and `GET /internal/documents/stream` send it.
 */
export interface WholeDocument {
  id: string;
  workspaceId: string;
  /** The creator's user id (search's author filter); null from a document service that did not send it yet. */
  createdBy: string | null;
  parentId: string | null;
  title: string;
  icon: string | null;
  plainText: string;
  archived: boolean;
  /** ISO 8601 with milliseconds. */
  updatedAt: string;
}

/** What a document.created / document.updated event says about the text (libs/events contracts). */
export interface EventText {
  id: string;
  plainText: string;
  plainTextTruncated: boolean;
}

/** The document's whole plain text from the document service; null when it no longer exists. */
export function fetchDocumentText(
  client: ServiceClient,
  documentId: string,
  options: Pick<CallOptions<WholeDocument>, 'requestId' | 'timeoutMs'> = {},
): Promise<WholeDocument | null> {
  return client.get<WholeDocument>('document', `/internal/documents/${encodeURIComponent(documentId)}/text`, {
    ...options,
    parse: (data) => parseWholeDocument(data, 'the document text answer'),
  });
}

/**
 * The whole plain text behind a document event: the event's own when it was not cut, else the
 * document service's (which is the document's current text: it may be newer than the event).
 * null when the text was cut and the document is gone since (a later document.deleted follows).
 */
export async function wholePlainText(
  client: ServiceClient,
  data: EventText,
  options: Pick<CallOptions<WholeDocument>, 'requestId' | 'timeoutMs'> = {},
): Promise<string | null> {
  if (!data.plainTextTruncated) return data.plainText;
  const doc = await fetchDocumentText(client, data.id, options);
  return doc ? doc.plainText : null;
}

/** Checks an answer's shape; throws an Error naming `what` when a field is missing or wrong. */
export function parseWholeDocument(data: unknown, what: string): WholeDocument {
  const d = data as Partial<Record<keyof WholeDocument, unknown>> | null;
  if (
    typeof d?.id !== 'string' ||
    typeof d.workspaceId !== 'string' ||
    (d.createdBy !== undefined && d.createdBy !== null && typeof d.createdBy !== 'string') ||
    (d.parentId !== null && typeof d.parentId !== 'string') ||
    typeof d.title !== 'string' ||
    (d.icon !== null && typeof d.icon !== 'string') ||
    typeof d.plainText !== 'string' ||
    typeof d.archived !== 'boolean' ||
    typeof d.updatedAt !== 'string'
  )
    throw new Error(`${what} lacks a field`);
  return {
    id: d.id,
    workspaceId: d.workspaceId,
    createdBy: (d.createdBy as string | null | undefined) ?? null,
    parentId: d.parentId as string | null,
    title: d.title,
    icon: d.icon as string | null,
    plainText: d.plainText,
    archived: d.archived,
    updatedAt: d.updatedAt,
  };
}
