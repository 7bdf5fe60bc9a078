import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import { createDocument, createWorkspace, noisePng, type Stack, signInNew } from '@wiki/testing';
import sharp from 'sharp';
import { getAs, gifHtmlPolyglot, keyOf, startAttachmentStack, uploaded } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startAttachmentStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** A workspace with a document holding a PNG, a WebP, an SVG and a text file. */
async function withFiles(name: string) {
  const owner = await signInNew(stack, name);
  const ws = await createWorkspace(stack, owner, { name: `${name}'s` });
  const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Files' });
  const upload = (fileName: string, body: Buffer) => uploaded(stack, owner, ws.id, doc.id, { name: fileName, body });
  const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a6' } })
    .webp()
    .toBuffer();
  return {
    owner,
    ws,
    png: await upload('photo.png', noisePng(320, 200)),
    webp: await upload('photo.webp', webp),
    gif: await upload('trick.gif', gifHtmlPolyglot(10, 10)),
    svg: await upload(
      'logo.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    ),
    text: await upload('notes.txt', Buffer.from('plain words')),
  };
}

interface Answer {
  status: number;
  type: string | null;
  bytes: Buffer;
}

/** The internal route, straight at the attachment service (the gateway does not route it). */
async function image(
  key: string,
  workspaceId: string,
  identity: string | null,
  maxBytes: number | string = 1 << 20,
  route: 'image' | 'file' = 'image',
): Promise<Answer> {
  const query = new URLSearchParams({ url: key, workspaceId, maxBytes: String(maxBytes) });
  const res = await fetch(`${stack.config.urls.attachment}/internal/attachments/${route}?${query}`, {
    headers: identity ? { 'x-wiki-identity': identity } : {},
  });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const asExport = () => mintServiceToken(stack.config.internalTokenSecret, 'export');
const code = (a: Answer) => JSON.parse(a.bytes.toString()).error.code;

describe('GET /internal/attachments/image', () => {
  it('answers a raster image’s exact bytes with its sniffed type to a service of its workspace', async () => {
    const { owner, ws, png: p, webp, gif } = await withFiles('Ines');
    const token = await asExport();
    const answer = await image(keyOf(p), ws.id, token);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('image/png');
    // The bytes as stored (cleaned on arrival), the same the file route serves.
    expect(answer.bytes.equals((await getAs(stack, owner, p.url)).bytes)).toBe(true);
    expect((await image(keyOf(webp), ws.id, token)).type).toBe('image/webp');
    // A polyglot sniffed as GIF is a GIF: handed out as an image, never as a page.
    expect((await image(keyOf(gif), ws.id, token)).type).toBe('image/gif');
  });

  it('requires a service identity: 401 without one, 403 for a user, and the gateway does not route it', async () => {
    const { owner, ws, png: p } = await withFiles('Jon');
    const none = await image(keyOf(p), ws.id, null);
    expect(none.status).toBe(401);
    expect(code(none)).toBe('UNAUTHORIZED');
    const user = await mintIdentityToken(stack.config.internalTokenSecret, { kind: 'user', userId: owner.id });
    expect((await image(keyOf(p), ws.id, user)).status).toBe(403);
    const forged = await image(keyOf(p), ws.id, 'not-a-token');
    expect(forged.status).toBe(401);
    const query = new URLSearchParams({ url: keyOf(p), workspaceId: ws.id, maxBytes: '1000000' });
    const viaGateway = await fetch(`${stack.gatewayUrl}/internal/attachments/image?${query}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(viaGateway.status).toBe(404);
  });

  it('answers 404 for a key of another workspace, exactly as for a key nobody stored', async () => {
    const mine = await withFiles('Kai');
    const theirs = await withFiles('Lea');
    const token = await asExport();
    const cross = await image(keyOf(theirs.png), mine.ws.id, token);
    expect(cross.status).toBe(404);
    const unknown = await image(`workspaces/${mine.ws.id}/documents/x/y/none.png`, mine.ws.id, token);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(cross.bytes.toString()).error.message).toBe(JSON.parse(unknown.bytes.toString()).error.message);
    for (const key of ['../etc/passwd', '/etc/passwd', `${keyOf(mine.png)}/../x`]) {
      expect((await image(key, mine.ws.id, token)).status).toBe(404);
    }
    // The key of its own workspace, same call otherwise: the refusal was the workspace's.
    expect((await image(keyOf(theirs.png), theirs.ws.id, token)).status).toBe(200);
  });

  it('refuses what is not a raster image (415) and an image over the caller’s cap (413)', async () => {
    const { ws, png: p, svg, text } = await withFiles('Mia');
    const token = await asExport();
    expect(svg.mimeType).toBe('image/svg+xml');
    for (const file of [svg, text]) {
      const answer = await image(keyOf(file), ws.id, token);
      expect(answer.status).toBe(415);
      expect(code(answer)).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const tooBig = await image(keyOf(p), ws.id, token, p.fileSize - 1);
    expect(tooBig.status).toBe(413);
    expect(code(tooBig)).toBe('PAYLOAD_TOO_LARGE');
    expect((await image(keyOf(p), ws.id, token, p.fileSize)).status).toBe(200);
  });

  it('answers 400 for a missing or malformed parameter', async () => {
    const { ws, png: p } = await withFiles('Noa');
    const token = await asExport();
    expect((await image(keyOf(p), 'not-a-uuid', token)).status).toBe(400);
    expect((await image(keyOf(p), ws.id, token, 0)).status).toBe(400);
    expect((await image(keyOf(p), ws.id, token, 'lots')).status).toBe(400);
    const noWorkspace = await fetch(
      `${stack.config.urls.attachment}/internal/attachments/image?url=${encodeURIComponent(keyOf(p))}&maxBytes=10`,
      { headers: { 'x-wiki-identity': token } },
    );
    expect(noWorkspace.status).toBe(400);
    expect(((await noWorkspace.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /internal/attachments/file', () => {
  it('answers any file of the workspace as bytes, never another workspace’s, never over the cap', async () => {
    const mine = await withFiles('Ola');
    const theirs = await withFiles('Pia');
    const token = await asExport();
    const text = await image(keyOf(mine.text), mine.ws.id, token, 1 << 20, 'file');
    expect(text.status).toBe(200);
    expect(text.bytes.toString()).toBe('plain words');
    // Handed out as bytes, never as a page or a script.
    expect(text.type).toBe('application/octet-stream');
    expect((await image(keyOf(mine.svg), mine.ws.id, token, 1 << 20, 'file')).status).toBe(200);
    expect((await image(keyOf(theirs.text), mine.ws.id, token, 1 << 20, 'file')).status).toBe(404);
    expect((await image(keyOf(mine.text), mine.ws.id, token, 3, 'file')).status).toBe(413);
    expect((await image(keyOf(mine.text), mine.ws.id, null, 1 << 20, 'file')).status).toBe(401);
  });
});
