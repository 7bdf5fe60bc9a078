import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDENTITY_HEADER, verifyIdentityToken } from '@wiki/auth';
import type { Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/**
 * A stand-in for the document service's `GET /internal/documents/:id` (the read-through contract),
 * on port 0. It insists on a valid service token, as the real route does.
 */
export interface FakeDocumentService {
  url: string;
  add(doc: { id?: string; workspaceId: string; title?: string }): string;
  remove(id: string): void;
  /** Requests it answered, by document id. */
  lookups: string[];
  /** The `x-request-id` each look-up carried, in the order of `lookups`. */
  lookupRequestIds: Array<string | undefined>;
  /** While set, every look-up fails with this status. */
  failWith: number | null;
  useSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startFakeDocumentService(): Promise<FakeDocumentService> {
  const docs = new Map<string, { id: string; workspaceId: string; title: string }>();
  const lookups: string[] = [];
  const lookupRequestIds: Array<string | undefined> = [];
  let secret = '';
  const server: Server = createServer(async (req, res) => {
    const match = /^\/internal\/documents\/([^/?]+)$/.exec(req.url ?? '');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || !match) return send(404, { success: false });
    try {
      const identity = await verifyIdentityToken(secret, String(req.headers[IDENTITY_HEADER] ?? ''));
      if (identity.kind !== 'service') return send(403, { success: false });
    } catch {
      return send(401, { success: false });
    }
    lookups.push(match[1]);
    lookupRequestIds.push(req.headers['x-request-id'] as string | undefined);
    if (fake.failWith) return send(fake.failWith, { success: false });
    const doc = docs.get(match[1]);
    if (!doc) return send(404, { success: false, error: { code: 'NOT_FOUND', message: 'Document not found' } });
    return send(200, { success: true, data: { ...doc, parentId: null, isArchived: false, isPublished: false } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeDocumentService = {
    url: `http://127.0.0.1:${port}`,
    lookups,
    lookupRequestIds,
    failWith: null,
    add(doc) {
      const id = doc.id ?? randomUUID();
      docs.set(id, { id, workspaceId: doc.workspaceId, title: doc.title ?? 'Doc' });
      return id;
    },
    remove: (id) => void docs.delete(id),
    useSecret(s) {
      secret = s;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}

export interface CommentStack extends Stack {
  docs: FakeDocumentService;
}

/** Gateway + workspace + comment services, with the fake document service behind the read-through. */
export async function startCommentStack(): Promise<CommentStack> {
  const docs = await startFakeDocumentService();
  try {
    const stack = await startPlatform(['workspace', 'comment'], { env: { DOCUMENT_URL: docs.url } });
    docs.useSecret(stack.config.internalTokenSecret);
    const stopStack = stack.stop;
    return Object.assign(stack, {
      docs,
      async stop() {
        await stopStack();
        await docs.close();
      },
    });
  } catch (error) {
    await docs.close();
    throw error;
  }
}

export function mention(user: { id: string; name: string }): string {
  return `@[${user.name}](${user.id})`;
}

export const anchor = (over: Record<string, unknown> = {}) => ({
  blockId: 'block-1',
  startOffset: 0,
  endOffset: 5,
  selectedText: 'Hello',
  ...over,
});
