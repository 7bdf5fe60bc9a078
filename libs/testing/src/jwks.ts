import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface MintOptions {
  /** Seconds until expiry; negative gives an expired token. Default one hour. */
  expiresIn?: number;
  issuer?: string;
  audience?: string | null;
  /** Sign with a key the JWKS does not publish. */
  foreignKey?: boolean;
  kid?: string;
}

export interface JwksServer {
  issuer: string;
  jwksUrl: string;
  audience: string;
  /** The published key, for forging tokens in negative tests. */
  publicJwk: JWK;
  mint(claims: JWTPayload & { sub: string }, options?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

/**
 * A stand-in OIDC provider: publishes an RS256 key at the Keycloak-style JWKS path under
 * `issuer` and signs tokens with it, so the gateway's `oidc` mode runs unchanged in tests.
 */
export async function startJwks(audience = 'wiki-test'): Promise<JwksServer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const kid = 'test-key-1';
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };

  const server: Server = createServer((req, res) => {
    if (req.url?.endsWith('/protocol/openid-connect/certs')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}/realms/test`;

  return {
    issuer,
    jwksUrl: `${issuer}/protocol/openid-connect/certs`,
    audience,
    publicJwk,
    async mint(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? kid })
        .setIssuer(options.issuer ?? issuer)
        .setIssuedAt(now - 5)
        .setExpirationTime(now + (options.expiresIn ?? 3600));
      if (options.audience !== null) jwt.setAudience(options.audience ?? audience);
      return jwt.sign(options.foreignKey ? foreign.privateKey : privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
