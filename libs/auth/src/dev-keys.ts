import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';

/** Issuer of the tokens `npm run token` prints in dev mode. */
export const DEV_ISSUER = 'wiki-dev';
export const DEV_ALG = 'ES256';

export interface DevKeys {
  publicJwk: JWK;
  privateJwk: JWK;
}

/** The dev provider's key pair, made once into `<dataDir>/dev-auth.json`. */
export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeys> {
  const file = join(dataDir, 'dev-auth.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevKeys;
  const { publicKey, privateKey } = await generateKeyPair(DEV_ALG, { extractable: true });
  const kid = `dev-${Date.now().toString(36)}`;
  const keys: DevKeys = {
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: DEV_ALG, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: DEV_ALG },
  };
  mkdirSync(dataDir, { recursive: true });
  // wx: when two processes start together, the first one's keys win.
  try {
    writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600, flag: 'wx' });
  } catch {
    return JSON.parse(readFileSync(file, 'utf8')) as DevKeys;
  }
  return keys;
}

/** Signs a dev access token for `email` (the subject is derived from the email, so it is stable). */
export async function mintDevToken(
  dataDir: string,
  email: string,
  name?: string,
  ttlSeconds = 12 * 3600,
): Promise<string> {
  const keys = await loadOrCreateDevKeys(dataDir);
  const key = await importJWK(keys.privateJwk, DEV_ALG);
  const normalized = email.trim().toLowerCase();
  return new SignJWT({ email: normalized, name: name ?? normalized.split('@')[0] })
    .setProtectedHeader({ alg: DEV_ALG, kid: keys.privateJwk.kid })
    .setIssuer(DEV_ISSUER)
    .setSubject(`dev|${normalized}`)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}
