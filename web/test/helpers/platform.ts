import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServiceName } from '@wiki/config';
import type { Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/** The built app (`npm run build -w web`, or `npm test`, which builds it first). */
export const WEB_DIST = fileURLToPath(new URL('../../dist', import.meta.url));

/** The client id the browser signs in as; the test IdP's tokens carry it as their audience. */
export const WEB_CLIENT_ID = 'wiki-test';

/**
 * The real gateway serving web/dist in front of the named services, in `oidc` mode against the test
 * identity provider (libs/testing startJwks), whose audience is the app's client id.
 */
export async function startWebPlatform(
  names: readonly ServiceName[],
  env: Record<string, string> = {},
): Promise<Stack> {
  if (!existsSync(`${WEB_DIST}/index.html`)) {
    throw new Error('web/dist/index.html is missing: run `npm run build -w web` (npm test builds it first).');
  }
  return startPlatform(names, { env: { WEB_DIR: WEB_DIST, AUTH_CLIENT_ID: WEB_CLIENT_ID, ...env } });
}
