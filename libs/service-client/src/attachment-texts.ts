import { listOf, missingRoute } from './answer-lists.js';
import type { CallOptions, ServiceClient } from './service-client.js';

/**
 * The text extracted from an attachment (PDF, Word, HTML, text files) and where it belongs, as the
 * attachment service's `GET /internal/attachments/{id}/text` and `/internal/attachments/texts`
 * send it. `truncated`: the file had more text than the service keeps (ATTACHMENTS_TEXT_MAX_CHARS).
 */
export interface AttachmentText {
  id: string;
  documentId: string;
  workspaceId: string;
  fileName: string;
  text: string;
  truncated: boolean;
}

export interface AttachmentTextsPage {
  /** One workspace's attachments; every workspace's when absent. */
  workspaceId?: string;
  /** Resume after this attachment id (exclusive). */
  after?: string;
  /** 1..100 (the route's bounds: each text may be long). */
  limit: number;
}

type Options = Pick<CallOptions<unknown>, 'requestId' | 'timeoutMs'>;

/**
 * An attachment's extracted text; null when there is none: not extracted yet, nothing could be
 * read from the file, or the attachment is gone.
 */
export function fetchAttachmentText(
  client: ServiceClient,
  attachmentId: string,
  options: Options = {},
): Promise<AttachmentText | null> {
  return client.get<AttachmentText>('attachment', `/internal/attachments/${encodeURIComponent(attachmentId)}/text`, {
    ...options,
    parse: (data) => parseAttachmentText(data, 'the attachment text answer'),
  });
}

/**
 * The next `limit` attachments that have extracted text, in ascending id after `after`, for
 * rebuilding a search index: fewer than `limit` means the end. A 503 when the attachment service
 * cannot be asked.
 */
export async function listAttachmentTexts(
  client: ServiceClient,
  page: AttachmentTextsPage,
  options: Options = {},
): Promise<AttachmentText[]> {
  const query = new URLSearchParams({ limit: String(page.limit) });
  if (page.workspaceId) query.set('workspaceId', page.workspaceId);
  if (page.after) query.set('after', page.after);
  const texts = await client.get<AttachmentText[]>('attachment', `/internal/attachments/texts?${query}`, {
    ...options,
    parse: (data) => listOf(data, parseAttachmentText, 'the attachment texts answer'),
  });
  if (texts === null) throw missingRoute('attachment', '/internal/attachments/texts');
  return texts;
}

/** Checks an answer's shape; throws an Error naming `what` when a field is missing or wrong. */
export function parseAttachmentText(data: unknown, what: string): AttachmentText {
  const d = data as Partial<Record<keyof AttachmentText, unknown>> | null;
  if (
    typeof d?.id !== 'string' ||
    typeof d.documentId !== 'string' ||
    typeof d.workspaceId !== 'string' ||
    typeof d.fileName !== 'string' ||
    typeof d.text !== 'string' ||
    typeof d.truncated !== 'boolean'
  )
    throw new Error(`${what} lacks a field`);
  return {
    id: d.id,
    documentId: d.documentId,
    workspaceId: d.workspaceId,
    fileName: d.fileName,
    text: d.text,
    truncated: d.truncated,
  };
}
