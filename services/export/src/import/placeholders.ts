/**
 * References between planned items, written into planned content where the new document's URL
 * or the attachment's URL belongs; the creation step swaps them for the real ones
 * (`resolvePlaceholders`) once it knows the workspace and the ids it created.
 */
export const DOCUMENT_LINK = 'wiki-import:document:';
export const ATTACHMENT_URL = 'wiki-import:attachment:';

const PLACEHOLDER = /^wiki-import:(document|attachment):([0-9a-f-]{36})(#.*)?$/;

export interface PlaceholderUrls {
  /** The link to a created document, e.g. `/w/<workspaceId>/d/<documentId>`. */
  document(key: string): string;
  /** The URL of a stored attachment, e.g. `/api/v1/attachments/file?url=<storageKey>`. */
  attachment(key: string): string;
}

/** Content with every placeholder replaced (a document link keeps its `#fragment`). */
export function resolvePlaceholders<T>(content: T, urls: PlaceholderUrls): T {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const match = PLACEHOLDER.exec(value);
      if (!match) return value;
      return match[1] === 'document' ? `${urls.document(match[2])}${match[3] ?? ''}` : urls.attachment(match[2]);
    }
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    }
    return value;
  };
  return walk(content) as T;
}
