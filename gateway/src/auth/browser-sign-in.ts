import { type AuthSettings, mintDevToken } from '@wiki/auth';
import { errorResponses, notBlank, object, stringEnum, Type } from '@wiki/http';
import type { FastifyInstance } from 'fastify';
import { openApiErrorResponse } from '../docs.js';

/** What the browser asks its identity provider for (ARCHITECTURE 2.1: sub, email, name). */
export const SIGN_IN_SCOPE = 'openid profile email';

/** How long a token from the dev sign-in form lasts (mintDevToken's default, said here to answer it). */
export const DEV_TOKEN_TTL_SECONDS = 12 * 3600;

export const authConfigSchema = object(
  {
    provider: stringEnum(['dev', 'oidc', 'firebase'] as const),
    issuer: Type.String({ description: 'The OIDC issuer (its discovery document is below it)' }),
    clientId: Type.String({ description: 'The public client the web app signs in as (Authorization Code + PKCE)' }),
    scope: Type.String(),
  },
  ['provider', 'scope'],
);

export const devSignInBody = object(
  {
    email: Type.String({ format: 'email', maxLength: 255 }),
    name: notBlank(100),
  },
  ['email'],
);

export const devSignInAnswer = object(
  {
    accessToken: Type.String(),
    tokenType: stringEnum(['Bearer'] as const),
    expiresIn: Type.Integer({ description: 'Seconds the token is valid for' }),
  },
  ['accessToken', 'tokenType', 'expiresIn'],
);

/** Whether `POST /auth/dev/sign-in` exists: the dev provider, never in production (loadAuthSettings refuses it there too). */
export function devSignInOpen(auth: Pick<AuthSettings, 'provider'>, production: boolean): boolean {
  return auth.provider === 'dev' && !production;
}

/** What `GET /auth/config` answers: the provider, and under OIDC the issuer and public client. */
export function browserAuthConfig(auth: AuthSettings): {
  provider: AuthSettings['provider'];
  issuer?: string;
  clientId?: string;
  scope: string;
} {
  if (auth.provider !== 'oidc') return { provider: auth.provider, scope: SIGN_IN_SCOPE };
  return {
    provider: 'oidc',
    issuer: auth.issuer,
    ...(auth.clientId ? { clientId: auth.clientId } : {}),
    scope: SIGN_IN_SCOPE,
  };
}

/** The routes below as OpenAPI paths, for the gateway's part of the merged document (docs.ts). */
export function browserSignInOpenApi(
  auth: Pick<AuthSettings, 'provider'>,
  production: boolean,
): Record<string, object> {
  const json = (schema: object) => ({ 'application/json': { schema } });
  const paths: Record<string, object> = {
    '/auth/config': {
      get: {
        tags: ['sign-in'],
        summary: 'How the web app signs in: the identity provider, and under OIDC its issuer and public client',
        security: [],
        responses: { 200: { description: 'The sign-in settings', content: json(authConfigSchema) } },
      },
    },
  };
  if (devSignInOpen(auth, production)) {
    paths['/auth/dev/sign-in'] = {
      post: {
        tags: ['sign-in'],
        summary: 'A token for the dev identity provider (AUTH_PROVIDER=dev only; absent in production)',
        security: [],
        requestBody: { required: true, content: json(devSignInBody) },
        responses: {
          200: { description: 'An access token', content: json(devSignInAnswer) },
          400: openApiErrorResponse('VALIDATION_ERROR'),
          429: openApiErrorResponse('RATE_LIMITED'),
        },
      },
    };
  }
  return paths;
}

export interface BrowserSignInParts {
  auth: AuthSettings;
  /** Where the dev provider's key pair is (the one the gateway verifies with). */
  dataDir: string;
  production: boolean;
}

/**
 * The web app's sign-in needs (ARCHITECTURE 5.17): `GET /auth/config` tells it how to sign in, and
 * under the dev provider only, `POST /auth/dev/sign-in` answers its form with a token minted by
 * the key pair the gateway trusts (what `npm run token` prints). Both are outside `/api/v1`: they
 * are the gateway's, not a service's. The form's route is counted in the address's public rate
 * limit (access.ts), since it is anyone's way to a token.
 */
export function registerBrowserSignIn(app: FastifyInstance, parts: BrowserSignInParts): void {
  const config = browserAuthConfig(parts.auth);
  if (parts.auth.provider === 'oidc' && !config.clientId) {
    app.log.warn('AUTH_CLIENT_ID is not set: the web app cannot sign in with OIDC (GET /auth/config has no clientId)');
  }
  app.get('/auth/config', { schema: { hide: true, response: { 200: authConfigSchema } } }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return config;
  });

  if (!devSignInOpen(parts.auth, parts.production)) return;
  app.post<{ Body: { email: string; name?: string } }>(
    '/auth/dev/sign-in',
    {
      schema: {
        hide: true,
        body: devSignInBody,
        response: { 200: devSignInAnswer, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) => {
      const { email, name } = request.body;
      const accessToken = await mintDevToken(parts.dataDir, email, name?.trim(), DEV_TOKEN_TTL_SECONDS);
      reply.header('cache-control', 'no-store');
      return { accessToken, tokenType: 'Bearer' as const, expiresIn: DEV_TOKEN_TTL_SECONDS };
    },
  );
}
