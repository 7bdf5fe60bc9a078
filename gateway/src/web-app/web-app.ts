import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathOf, segmentsOf } from '../routing.js';
import { HTML_SECURITY_HEADERS } from './content-security-policy.js';
import { type IndexPage, IndexPages, withHeadTags } from './index-page.js';
import type { LinkPreviews } from './link-previews.js';
import { notBuiltPage } from './not-built-page.js';
import { isAppRoute, isGatewayPath, looksLikeFile, relativeFilePath } from './paths.js';

/** Hashed build output never changes under its name. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;
/** Other files of the build (favicon, robots.txt) keep their names across builds. */
const FILE_CACHE_CONTROL = 'public, max-age=3600';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WebAppParts {
  /** The built app (WEB_DIR, settings.ts). */
  webDir: string;
  /** The CSP of an HTML answer, allowing the inline scripts of these hashes (content-security-policy.ts). */
  policyFor: (scriptHashes: string[]) => string;
  previews: LinkPreviews;
}

/**
 * Serves the browser app (ARCHITECTURE 5.17) from WEB_DIR, beside the API: `/assets/**` cached
 * for good (hashed names), other files of the build for an hour, and `index.html` (no-cache, with
 * the CSP) for every page of the app (200) and, asked for HTML, any other path that is neither the
 * gateway's (paths.ts) nor a file (404, the app shows its not-found page). `/p/<id>` gets the published
 * document's title and description in its head, for link previews. Without a build, pages answer
 * a 503 that says how to build it; the API is not concerned.
 */
export async function registerWebApp(app: FastifyInstance, parts: WebAppParts): Promise<void> {
  const { webDir, policyFor, previews } = parts;
  const pages = new IndexPages(webDir, policyFor);
  if (!(await pages.current())) {
    app.log.warn({ webDir }, 'the web app is not built (no index.html): pages answer 503 until `npm run build`');
  }

  // In a scope of its own: the docs UI registers @fastify/static (and its reply decorator) too.
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('x-content-type-options', 'nosniff');
    });
    // reply.sendFile for the files at the root of the build; Cache-Control is set per answer.
    await scope.register(fastifyStatic, {
      root: webDir,
      serve: false,
      index: false,
      dotfiles: 'ignore',
      cacheControl: false,
      suppressWarning: true,
    });
    await scope.register(fastifyStatic, {
      root: join(webDir, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      dotfiles: 'ignore',
      maxAge: ASSET_MAX_AGE_MS,
      immutable: true,
      suppressWarning: true,
    });

    scope.get<{ Params: { documentId: string } }>(
      '/p/:documentId',
      { schema: { hide: true } },
      async (request, reply) => {
        const page = await pages.current();
        if (!page) return sendNotBuilt(reply, policyFor);
        const id = request.params.documentId;
        if (!UUID.test(id)) return sendPage(request, reply, page, page.html, 404);
        let preview: Awaited<ReturnType<LinkPreviews['of']>>;
        try {
          preview = await previews.of(id.toLowerCase(), request.id);
        } catch {
          // The document service is away (logged by the client): the app itself will retry.
          reply.header('retry-after', '5');
          return sendPage(request, reply, page, page.html, 503);
        }
        if (!preview) return sendPage(request, reply, page, page.html, 404);
        return sendPage(request, reply, page, withHeadTags(page.html, preview), 200);
      },
    );

    const fallback = async (request: FastifyRequest, reply: FastifyReply) => {
      const segments = segmentsOf(pathOf(request.url));
      if (isGatewayPath(segments)) return reply.callNotFound();
      let status = 200;
      if (!isAppRoute(segments)) {
        const file = await fileAt(webDir, segments);
        if (file !== undefined && file !== 'index.html') return sendFile(reply, file, policyFor);
        if (file === undefined && looksLikeFile(segments)) return reply.callNotFound();
        // A path that is no page of the app: a browser gets the app's not-found page (404), a
        // program the JSON 404 it always got (so /internal/**, /metrics never answer 200 here).
        if (!acceptsHtml(request)) return reply.callNotFound();
        status = 404;
      }
      const page = await pages.current();
      if (!page) return sendNotBuilt(reply, policyFor);
      return sendPage(request, reply, page, page.html, status);
    };
    scope.get('/', { schema: { hide: true } }, fallback);
    scope.get('/*', { schema: { hide: true } }, fallback);
  });
}

/** Whether the caller asks for a page (a browser's navigation), not JSON or anything at all. */
function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').toLowerCase().includes('text/html');
}

/** The relative path of a regular file of the build at these segments, else undefined. */
async function fileAt(webDir: string, segments: readonly string[]): Promise<string | undefined> {
  const relative = relativeFilePath(segments);
  if (relative === undefined) return undefined;
  const info = await stat(join(webDir, relative)).catch(() => undefined);
  return info?.isFile() ? relative : undefined;
}

function sendFile(reply: FastifyReply, file: string, policyFor: (hashes: string[]) => string): FastifyReply {
  if (file.endsWith('.html')) {
    reply.headers({ 'cache-control': 'no-cache', 'content-security-policy': policyFor([]), ...HTML_SECURITY_HEADERS });
  } else {
    reply.header('cache-control', FILE_CACHE_CONTROL);
  }
  return reply.sendFile(file);
}

/** An HTML answer of the app: never reused without asking, with its CSP; a 200 of the plain page validates by ETag. */
function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: IndexPage,
  html: string,
  status: number,
): FastifyReply {
  reply.status(status).headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-security-policy': page.policy,
    ...HTML_SECURITY_HEADERS,
  });
  if (status === 200 && html === page.html) {
    reply.header('etag', page.etag);
    if (etagMatches(request.headers['if-none-match'], page.etag)) return reply.status(304).send();
  }
  return reply.send(html);
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}

function sendNotBuilt(reply: FastifyReply, policyFor: (hashes: string[]) => string): FastifyReply {
  return reply
    .status(503)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': policyFor([]),
      ...HTML_SECURITY_HEADERS,
    })
    .send(notBuiltPage());
}
