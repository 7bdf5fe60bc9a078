import type { CallOptions, ServiceClient } from './service-client.js';

/** A document's whole plain text and state, as the document service's `GET /internal/documents/{id}/text` answers it. */
export interface DocumentText {
  id: string;
  workspaceId: string;
  parentId: string | null;
  title: string;
  icon: string | null;
  isArchived: boolean;
  plainText: string;
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
  options: Pick<CallOptions<DocumentText>, 'requestId' | 'timeoutMs'> = {},
): Promise<DocumentText | null> {
  return client.get<DocumentText>('document', `/internal/documents/${encodeURIComponent(documentId)}/text`, {
    ...options,
    parse: parseDocumentText,
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
  options: Pick<CallOptions<DocumentText>, 'requestId' | 'timeoutMs'> = {},
): Promise<string | null> {
  if (!data.plainTextTruncated) return data.plainText;
  const doc = await fetchDocumentText(client, data.id, options);
  return doc ? doc.plainText : null;
}

function parseDocumentText(data: unknown): DocumentText {
  const d = data as Partial<Record<keyof DocumentText, unknown>> | null;
  if (
    typeof d?.id !== 'string' ||
    typeof d.workspaceId !== 'string' ||
    (d.parentId !== null && typeof d.parentId !== 'string') ||
    typeof d.title !== 'string' ||
    (d.icon !== null && typeof d.icon !== 'string') ||
    typeof d.isArchived !== 'boolean' ||
    typeof d.plainText !== 'string' ||
    typeof d.updatedAt !== 'string'
  )
    throw new Error('the document text answer lacks a field');
  return {
    id: d.id,
    workspaceId: d.workspaceId,
    parentId: d.parentId as string | null,
    title: d.title,
    icon: d.icon as string | null,
    isArchived: d.isArchived,
    plainText: d.plainText,
    updatedAt: d.updatedAt,
  };
}
