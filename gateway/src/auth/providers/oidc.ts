import { createRemoteJWKSet, type JWTPayload } from 'jose';
import { REMOTE_JWKS_OPTIONS, stringList, type TokenProvider } from './provider.js';

export interface OidcSettings {
  issuer: string;
  jwksUrl: string;
  audience?: string;
  clientId?: string;
}

/**
 * A self-hosted OpenID Connect provider such as Keycloak: keys from its JWKS endpoint, realm
 * roles from `realm_access.roles` and client roles from `resource_access[clientId].roles`.
 * Tokens must be for AUTH_AUDIENCE, or else AUTH_CLIENT_ID (`aud` or `azp`).
 */
export function oidcProvider(settings: OidcSettings): TokenProvider {
  if (!settings.audience && !settings.clientId) throw new Error('AUTH_AUDIENCE or AUTH_CLIENT_ID is required for oidc');
  return {
    name: 'oidc',
    keys: createRemoteJWKSet(new URL(settings.jwksUrl), REMOTE_JWKS_OPTIONS),
    issuer: settings.issuer,
    // loadAuthSettings refuses oidc without either (a token for another client of the realm must fail).
    client: settings.audience || settings.clientId,
    roles(payload: JWTPayload): string[] {
      const realm = stringList((payload.realm_access as { roles?: unknown } | undefined)?.roles);
      const clients = payload.resource_access as Record<string, { roles?: unknown }> | undefined;
      const client = settings.clientId && clients ? stringList(clients[settings.clientId]?.roles) : [];
      return [...new Set([...realm, ...client])];
    },
  };
}
