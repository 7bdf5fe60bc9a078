import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { forwardedIdentity, startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { makeWebBuild, THEME_SCRIPT, type WebBuild } from './helpers/web-build.js';

/**
 * The gateway serves the browser app (ARCHITECTURE 5.17, issue 27): files of a stand-in build,
 * index.html for the app's pages, the CSP and cache headers, the sign-in settings and the dev
 * sign-in form's route. Link previews, which need the document service, are in
 * test/gateway/link-previews.test.ts; the CSP seen by a browser in web-app-browser.test.ts.
 */
let idp: TestIdp;
let build: WebBuild;
let oidc: TestGateway;
let dev: TestGateway;

const PUBLIC_PER_MIN = 5;

beforeAll(async () => {
  idp = await startIdp();
  build = makeWebBuild();
  oidc = await startTestGateway({ idp, env: { WEB_DIR: build.dir } });
  dev = await startTestGateway({
    idp,
    env: {
      WEB_DIR: build.dir,
      AUTH_PROVIDER: 'dev',
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC_PER_MIN),
    },
  });
});
afterAll(async () => {
  await oidc?.close();
  await dev?.close();
  await idp?.close();
  build?.remove();
});

const get = (gw: TestGateway, url: string, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: 'GET', url, headers });

const themeHash = `'sha256-${createHash('sha256').update(THEME_SCRIPT).digest('base64')}'`;

describe('pages of the app', () => {
  it('answers index.html for every page of 5.17 and unknown paths, never cached without asking', async () => {
    for (const url of [
      '/',
      '/w/0b7c0f53-3c44-4b39-9a52-2a3f4e0f3c11',
      '/w/0b7c0f53-3c44-4b39-9a52-2a3f4e0f3c11/d/1c8d1f64-4d55-4c4a-8b63-3b4f5f1f4d22',
      '/w/0b7c0f53-3c44-4b39-9a52-2a3f4e0f3c11/settings',
      '/invite/Zm9vYmFyYmF6cXV4LXRva2VuLW9mLTMyLWJ5dGVz',
      '/settings',
      '/sign-in',
      '/auth/callback?code=abc&state=xyz',
    ]) {
      const res = await get(oidc, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toBe(build.indexHtml);
    }
  });

  it('answers other paths with the app’s page and a 404 to a browser, and the JSON 404 to anything else', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const url of ['/some/page/the/app/knows', '/internal/users/1']) {
      const page = await get(oidc, url, html);
      expect(page.statusCode, url).toBe(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toBe(build.indexHtml);
      const program = await get(oidc, url);
      expect(program.statusCode, url).toBe(404);
      expect(program.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('sends the strict CSP and the security headers, allowing the inline script by its hash', async () => {
    const res = await get(oidc, '/');
    const issuerOrigin = new URL(idp.issuer).origin;
    expect(res.headers['content-security-policy']).toBe(
      [
        "default-src 'self'",
        `script-src 'self' ${themeHash}`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob: https:",
        "media-src 'self' blob: https:",
        "font-src 'self' data:",
        `connect-src 'self' ${issuerOrigin}`,
        `frame-src 'self' ${issuerOrigin}`,
        "frame-ancestors 'self'",
        "base-uri 'self'",
        `form-action 'self' ${issuerOrigin}`,
        "object-src 'none'",
      ].join('; '),
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  });

  it('opens the policy to no issuer and no framing under the dev provider', async () => {
    const policy = String((await get(dev, '/')).headers['content-security-policy']);
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("frame-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("form-action 'self';");
  });

  it('validates index.html by its ETag, and answers HEAD without a body', async () => {
    const first = await get(oidc, '/w/x');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get(oidc, '/', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const head = await oidc.app.inject({ method: 'HEAD', url: '/settings' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(head.body).toBe('');
  });

  it('serves a rebuilt index.html at once', async () => {
    const rebuilt = build.indexHtml.replace('app-3f9a1c', 'app-77aa00');
    build.write('index.html', `${rebuilt}<!-- rebuilt -->\n`);
    try {
      expect((await get(oidc, '/w/x')).body).toContain('app-77aa00');
    } finally {
      build.write('index.html', build.indexHtml);
    }
    expect((await get(oidc, '/w/x')).body).toBe(build.indexHtml);
  });
});

describe('files of the build', () => {
  it('caches hashed assets for good, with their types', async () => {
    const js = await get(oidc, '/assets/app-3f9a1c.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    const css = await get(oidc, '/assets/app-3f9a1c.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toBe('body { margin: 0 }');
  });

  it('answers a missing asset or file 404, not the page', async () => {
    for (const url of ['/assets/app-000000.js', '/missing.txt', '/.env', '/assets/.env']) {
      const res = await get(oidc, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('serves the other files at the root briefly cached, HTML ones with the CSP', async () => {
    const robots = await get(oidc, '/robots.txt');
    expect(robots.statusCode).toBe(200);
    expect(robots.body).toContain('Disallow: /w/');
    expect(robots.headers['cache-control']).toBe('public, max-age=3600');
    const renew = await get(oidc, '/silent-renew.html');
    expect(renew.statusCode).toBe(200);
    expect(renew.headers['cache-control']).toBe('no-cache');
    expect(renew.headers['content-security-policy']).toContain("script-src 'self';");
  });
});

describe("the gateway's own paths", () => {
  it('keep the JSON 404 envelope for unknown API, collab, docs, health and auth paths', async () => {
    const token = await idp.mint({ sub: 'idp-web', email: 'web@example.com' });
    const cases: Array<[string, Record<string, string>]> = [
      ['/api/v1/no-such-area', { authorization: `Bearer ${token}` }],
      ['/api/v2/workspaces', {}],
      ['/api', {}],
      ['/collab', {}],
      ['/health/other', {}],
      ['/actuator/other', {}],
      ['/auth/other', {}],
      ['/auth/dev/sign-in', {}],
    ];
    for (const [url, headers] of cases) {
      const res = await get(oidc, url, headers);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.json(), url).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
    const post = await oidc.app.inject({ method: 'POST', url: '/w/x', payload: {} });
    expect(post.statusCode).toBe(404);
  });

  it('still proxy the API', async () => {
    const token = await idp.mint({ sub: 'idp-web', email: 'web@example.com' });
    const res = await get(oidc, '/api/v1/workspaces', { authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ service: 'workspace', url: '/api/v1/workspaces' });
  });
});

describe('sign-in settings', () => {
  it('tell the browser the OIDC issuer, public client and scope', async () => {
    const res = await get(oidc, '/auth/config');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.json()).toEqual({
      provider: 'oidc',
      issuer: idp.issuer,
      clientId: 'wiki-web',
      scope: 'openid profile email',
    });
  });

  it('say only the provider under dev', async () => {
    expect((await get(dev, '/auth/config')).json()).toEqual({ provider: 'dev', scope: 'openid profile email' });
  });

  it('are described in the merged OpenAPI document, with the dev form only under dev', async () => {
    const paths = (gw: TestGateway) => gw.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const oidcPaths = Object.keys((await paths(oidc)).json().paths);
    expect(oidcPaths).toContain('/auth/config');
    expect(oidcPaths).not.toContain('/auth/dev/sign-in');
    const devDoc = (await paths(dev)).json();
    expect(devDoc.paths['/auth/dev/sign-in'].post.responses['400'].description).toMatch(/^VALIDATION_ERROR/);
  });
});

describe('the dev sign-in form', () => {
  const signIn = (payload: unknown, gw = dev) =>
    gw.app.inject({ method: 'POST', url: '/auth/dev/sign-in', payload: payload as object });

  // The dev gateway's public limit is small: each case starts with the address's count at zero.
  beforeEach(async () => {
    const keys = await dev.redis.keys(`${dev.config.eventsPrefix}:gateway:rate:ip:*`);
    if (keys.length > 0) await dev.redis.del(...keys);
  });

  it('answers a dev token that the gateway accepts on the API', async () => {
    const res = await signIn({ email: 'Grace@Example.com', name: 'Grace Hopper' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 43_200 });

    const me = await get(dev, '/api/v1/users/me', { authorization: `Bearer ${body.accessToken}` });
    expect(me.statusCode).toBe(200);
    const identity = await forwardedIdentity(dev, me.json().data.headers);
    expect(identity).toMatchObject({ kind: 'user', email: 'grace@example.com', name: 'Grace Hopper' });
  });

  it('refuses a bad email or name with the validation envelope', async () => {
    for (const payload of [
      { email: 'not-an-email' },
      { name: 'No Email' },
      { email: 'a@example.com', name: '' },
      { email: 'a@example.com', name: 'x'.repeat(101) },
    ]) {
      const res = await signIn(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
      expect(res.json().error.details.length).toBeGreaterThan(0);
    }
  });

  it('does not exist under another provider', async () => {
    const res = await signIn({ email: 'eve@example.com' }, oidc);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it("counts against the address's public rate limit, which pages and files do not spend", async () => {
    for (let i = 0; i < PUBLIC_PER_MIN + 2; i++) {
      const page = await get(dev, '/w/x');
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-ratelimit-limit']).toBeUndefined();
      expect((await get(dev, '/assets/app-3f9a1c.js')).statusCode).toBe(200);
    }
    const answers = [];
    for (let i = 0; i < PUBLIC_PER_MIN + 1; i++) answers.push(await signIn({ email: `rate${i}@example.com` }));
    expect(answers.slice(0, PUBLIC_PER_MIN).map((r) => r.statusCode)).toEqual(Array(PUBLIC_PER_MIN).fill(200));
    const refused = answers[PUBLIC_PER_MIN];
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('without a build', () => {
  it('answers the pages 503 with how to build, while the API works', async () => {
    const gw = await startTestGateway({ idp, env: { WEB_DIR: join(build.dir, 'not-there') } });
    try {
      for (const url of ['/', '/w/x', '/p/0b7c0f53-3c44-4b39-9a52-2a3f4e0f3c11']) {
        const res = await get(gw, url);
        expect(res.statusCode, url).toBe(503);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('npm run build');
      }
      expect((await get(gw, '/assets/app-3f9a1c.js')).statusCode).toBe(404);
      const token = await idp.mint({ sub: 'idp-web', email: 'web@example.com' });
      expect((await get(gw, '/api/v1/workspaces', { authorization: `Bearer ${token}` })).statusCode).toBe(200);
      expect((await get(gw, '/auth/config')).statusCode).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
