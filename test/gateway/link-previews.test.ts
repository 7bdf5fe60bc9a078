import { createDocument, paragraph, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWebBuild, type WebBuild } from '../../gateway/test/helpers/web-build.js';
import { startPlatform } from '../platform.js';

/**
 * `/p/<documentId>` (issue 27): the gateway answers the app's index.html with the published
 * document's title and description in its head, for link previews, read from the real document
 * service's public route; anything not published is the plain page with a 404.
 */
let build: WebBuild;
let stack: Stack;
let author: SignedInUser;

beforeAll(async () => {
  build = makeWebBuild();
  stack = await startPlatform(['workspace', 'document'], { env: { WEB_DIR: build.dir } });
  author = await signInNew(stack, 'Preview Author');
});
afterAll(async () => {
  await stack?.stop();
  build?.remove();
});

async function page(path: string): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`);
  return { status: res.status, html: await res.text(), headers: res.headers };
}

function metaContent(html: string, attribute: string): string | undefined {
  const tag = html.match(new RegExp(`<meta ${attribute} content="([^"]*)">`));
  return tag?.[1];
}

describe('link previews of published documents', () => {
  it('fill the title, description and Open Graph tags from the document, escaped', async () => {
    const text = `Start <b>here</b> & read on. ${'All about the wiki. '.repeat(12)}`;
    const doc = await createDocument(stack, author, {
      title: 'Runbook "<script>alert(1)</script>"',
      content: [paragraph(text), paragraph('Second block')],
    });
    expect((await stack.request('POST', `/api/v1/documents/${doc.id}/publish`, { token: author.token })).status).toBe(
      200,
    );

    const { status, html, headers } = await page(`/p/${doc.id}`);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    const escapedTitle = 'Runbook &#34;&#60;script&#62;alert(1)&#60;/script&#62;&#34;';
    expect(html).toContain(`<title>${escapedTitle}</title>`);
    expect(metaContent(html, 'property="og:title"')).toBe(escapedTitle);
    expect(metaContent(html, 'property="og:type"')).toBe('article');
    expect(html).not.toContain('<script>alert(1)');
    const description = metaContent(html, 'name="description"');
    expect(description?.startsWith('Start &#60;b&#62;here&#60;/b&#62; &#38; read on. All about the wiki.')).toBe(true);
    expect(description?.endsWith('…')).toBe(true);
    expect(metaContent(html, 'property="og:description"')).toBe(description);
    // The page's own title and description gave way; the app's scripts are all still there.
    expect(html).not.toContain('<title>Wiki</title>');
    expect(html).not.toContain('content="A wiki"');
    expect(html).toContain('src="/assets/app-3f9a1c.js"');
  });

  it('answer the plain page with 404 for an unpublished, unknown or malformed id', async () => {
    const draft = await createDocument(stack, author, { title: 'Secret draft', content: [paragraph('hidden text')] });
    for (const path of [`/p/${draft.id}`, '/p/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b', '/p/not-a-document-id']) {
      const { status, html } = await page(path);
      expect(status, path).toBe(404);
      expect(html, path).toBe(build.indexHtml);
    }
  });
});
