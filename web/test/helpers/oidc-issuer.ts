import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** The one API the app's tokens are for: what `resource` resolves to when the app names none. */
const API_RESOURCE = 'urn:wiki:api';
/** Where a Keycloak realm publishes its keys; the gateway's default AUTH_JWKS_URL is there. */
const JWKS_PATH = '/protocol/openid-connect/certs';
/** The provider's own pages may load nothing from elsewhere (no form-action: its redirects go to the app). */
const PAGE_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:";

export interface OidcIssuerOptions {
  clientId: string;
  /** Seconds an access token lives (short, to see silent renewal). Default 300. */
  accessTokenTtl?: number;
}

export interface OidcIssuer {
  issuer: string;
  clientId: string;
  /** Every access token the issuer handed out, oldest first. */
  issuedAccessTokens: string[];
  /** The environment that points the gateway at this issuer. */
  gatewayEnv(): Record<string, string>;
  /**
   * Opens the issuer to the web app at `appOrigin` (known once the gateway listens, which in turn
   * needs the issuer's address): its redirect is `<origin>/auth/callback`, sign-out returns to `<origin>/`.
   */
  serveApp(appOrigin: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (panva's oidc-provider) for browser tests of the web app's sign-in:
 * the app is a public client (Authorization Code + PKCE, no secret), the login form is the
 * library's development one (any login signs in as that e-mail address, any password), consent is
 * implied for this first-party client, access tokens are JWTs for the app's client id carrying
 * email and name as the gateway reads them, and refresh tokens renew them silently.
 */
export async function startOidcIssuer(options: OidcIssuerOptions): Promise<OidcIssuer> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const issuedAccessTokens: string[] = [];

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'web-test', alg: 'RS256', use: 'sig' };
  const claimsOf = (accountId: string) => ({
    sub: accountId,
    email: accountId,
    email_verified: true,
    name: accountId.split('@')[0],
  });

  const configurationFor = (appOrigin: string): Configuration => ({
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        application_type: 'web',
        redirect_uris: [`${appOrigin}/auth/callback`],
        post_logout_redirect_uris: [`${appOrigin}/`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    routes: { jwks: JWKS_PATH },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => claimsOf(accountId) }),
    // The browser calls the token endpoint from the app's origin.
    clientBasedCORS: (_ctx, origin) => origin === appOrigin,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A first-party app: the person is not asked to consent to their own wiki.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid profile email offline_access');
      grant.addOIDCClaims(['email', 'email_verified', 'name']);
      grant.addResourceScope(API_RESOURCE, 'wiki');
      await grant.save();
      return grant;
    },
    extraTokenClaims: (_ctx, token) => {
      const accountId = (token as { accountId?: string }).accountId;
      if (!accountId) return undefined;
      const { email, email_verified, name } = claimsOf(accountId);
      return { email, email_verified, name };
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'wiki',
          audience: options.clientId,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtl ?? 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });

  return {
    issuer,
    clientId: options.clientId,
    issuedAccessTokens,
    serveApp(appOrigin) {
      const provider = new Provider(issuer, configurationFor(appOrigin));
      // Every token answer is read back so the tests can tell a renewed token from the first.
      provider.use(async (ctx, next) => {
        await next();
        // The library's pages import a web font from the internet: the browser must not ask for it.
        if (ctx.response.is('html')) ctx.set('content-security-policy', PAGE_POLICY);
        if (ctx.path === '/token' && ctx.status === 200) {
          const body = ctx.body as { access_token?: string } | undefined;
          if (body?.access_token) issuedAccessTokens.push(body.access_token);
        }
      });
      handler = provider.callback();
    },
    gatewayEnv: () => ({
      AUTH_PROVIDER: 'oidc',
      AUTH_ISSUER: issuer,
      AUTH_JWKS_URL: `${issuer}${JWKS_PATH}`,
      AUTH_AUDIENCE: options.clientId,
      AUTH_CLIENT_ID: options.clientId,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
