import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export type SigningAlg = 'RS256' | 'ES256';

export interface MintOptions {
  alg?: SigningAlg;
  issuer?: string;
  /** null leaves the audience out. */
  audience?: string | null;
  /** Seconds until expiry; negative for an expired token. */
  expiresIn?: number;
  kid?: string;
  /** Sign with a key the JWKS does not publish (under a published kid unless `kid` says otherwise). */
  foreignKey?: boolean;
}

export interface TestIdp {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** How many times the key set was fetched. */
  jwksFetches(): number;
  mint(claims: JWTPayload & { sub?: string }, options?: MintOptions): Promise<string>;
  /** The RS256 public key as PEM: the material an HS256 forgery would use as its secret. */
  publicPem: string;
  publicJwks: JWK[];
  close(): Promise<void>;
}

/**
 * A local identity provider for the gateway tests: publishes an RS256 and an ES256 key at
 * `/jwks` and signs tokens with them.
 */
export async function startIdp(
  options: { issuer?: (origin: string) => string; audience?: string } = {},
): Promise<TestIdp> {
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const ec = await generateKeyPair('ES256', { extractable: true });
  const foreignRsa = await generateKeyPair('RS256', { extractable: true });
  const foreignEc = await generateKeyPair('ES256', { extractable: true });
  const keys: JWK[] = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ];
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks') {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = options.issuer ? options.issuer(origin) : `${origin}/realms/test`;
  const audience = options.audience ?? 'wiki-api';

  return {
    jwksUrl: `${origin}/jwks`,
    issuer,
    audience,
    jwksFetches: () => fetches,
    publicPem: await exportSPKI(rsa.publicKey),
    publicJwks: keys,
    async mint(claims, opts = {}) {
      const alg = opts.alg ?? 'RS256';
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg, kid: opts.kid ?? (alg === 'RS256' ? 'rsa-1' : 'ec-1'), typ: 'JWT' })
        .setIssuer(opts.issuer ?? issuer)
        .setIssuedAt(now - 10)
        .setExpirationTime(now + (opts.expiresIn ?? 600));
      if (opts.audience !== null) jwt.setAudience(opts.audience ?? audience);
      const key = alg === 'RS256' ? (opts.foreignKey ? foreignRsa : rsa) : opts.foreignKey ? foreignEc : ec;
      return jwt.sign(key.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`) with the given claims. */
export function unsignedToken(claims: JWTPayload): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

/** Replaces the payload of a signed token, keeping its header and signature. */
export function tamperedToken(token: string, change: (claims: JWTPayload) => JWTPayload): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JWTPayload;
  return `${header}.${b64(change(claims))}.${signature}`;
}

/**
 * Counts the identity provider's signatures the process checks (RS256/ES256 through WebCrypto,
 * as jose does), leaving out HMAC: the gateway's own identity tokens. Restore it after the tests.
 */
export function countSignatureChecks() {
  const verify = vi.spyOn(crypto.subtle, 'verify');
  return {
    count: () => verify.mock.calls.filter(([algorithm]) => (algorithm as { name?: string }).name !== 'HMAC').length,
    restore: () => verify.mockRestore(),
  };
}
