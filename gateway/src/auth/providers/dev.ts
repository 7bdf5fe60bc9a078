import { DEV_ISSUER, loadOrCreateDevKeys } from '@wiki/auth';
import { createLocalJWKSet } from 'jose';
import type { TokenProvider } from './provider.js';

/**
 * The quick-start provider: tokens printed by `npm run token`, signed with the key pair kept in
 * `<dataDir>/dev-auth.json` (loadAuthSettings refuses `dev` when NODE_ENV=production).
 */
export async function devProvider(dataDir: string): Promise<TokenProvider> {
  const { publicJwk } = await loadOrCreateDevKeys(dataDir);
  return {
    name: 'dev',
    keys: createLocalJWKSet({ keys: [publicJwk] }),
    issuer: DEV_ISSUER,
    vouchesForEmails: true,
    roles: () => [],
  };
}
