import { plainTextOf } from '@wiki/blocks';
import { LocalCache } from '@wiki/cache';
import type { ServiceClient } from '@wiki/service-client';
import type { HeadTags } from './index-page.js';

/** Characters of a document's text its preview's description holds at most. */
export const DESCRIPTION_LENGTH = 160;
/** How long a published document's preview is reused (unpublishing shows within this). */
const PREVIEW_TTL_MS = 30_000;

/** What the public document route answers that a preview uses (spec: PublicDocumentResponse). */
interface PublicDocument {
  title: string;
  content: string;
}

function parsePublicDocument(data: unknown): PublicDocument {
  const doc = data as Partial<PublicDocument> | null;
  if (typeof doc?.title !== 'string' || typeof doc.content !== 'string') {
    throw new Error('the public document has no title or content');
  }
  return { title: doc.title, content: doc.content };
}

/**
 * The start of a text for a description: whitespace folded to single spaces, at most `max`
 * characters (whole code points), cut at a word where one is near, with an ellipsis when cut.
 */
export function descriptionOf(text: string, max = DESCRIPTION_LENGTH): string {
  const folded = text.replace(/\s+/gu, ' ').trim();
  const points = [...folded];
  if (points.length <= max) return folded;
  const cut = points.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A preview's title and description from a public document (its content is block JSON as text). */
export function previewOf(doc: PublicDocument): HeadTags {
  let blocks: unknown;
  try {
    blocks = JSON.parse(doc.content);
  } catch {
    blocks = [];
  }
  return { title: doc.title.trim() || 'Untitled', description: descriptionOf(plainTextOf(blocks)) };
}

/**
 * Link previews of published documents (`/p/<id>`), from the document service's public route,
 * kept briefly per document. Only published documents have one: anything else is null, and a
 * document service that cannot be reached throws (a 503).
 */
export class LinkPreviews {
  private readonly cache = new LocalCache<HeadTags>({ maxEntries: 2_000, ttlMs: PREVIEW_TTL_MS });

  constructor(private readonly peers: ServiceClient) {}

  async of(documentId: string, requestId: string): Promise<HeadTags | null> {
    const preview = await this.cache.getOrLoad(documentId, async () => {
      const doc = await this.peers.get('document', `/api/v1/public/documents/${documentId}`, {
        requestId,
        parse: parsePublicDocument,
      });
      return doc ? previewOf(doc) : undefined;
    });
    return preview ?? null;
  }
}
