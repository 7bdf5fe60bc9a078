import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AuthSettings, loadAuthSettings } from '@wiki/auth';
import {
  type Env,
  envVar,
  flag,
  listItems,
  readEnv,
  refuse,
  SERVICE_NAMES,
  type ServiceName,
  wholeNumber,
} from '@wiki/config';

/** What the gateway reads besides the shared configuration (libs/config). */
export interface GatewaySettings {
  /** Who issues the access tokens it accepts (AUTH_*, FIREBASE_PROJECT_ID; libs/auth provider-settings.ts). */
  auth: AuthSettings;
  /** Services whose readiness /actuator/health reports (GATEWAY_SERVICES: a list or `all`; default all). */
  services: ServiceName[];
  /** Fastify `trustProxy` (TRUST_PROXY): false, true, a hop count or addresses. */
  trustProxy: boolean | number | string;
  rateLimit: {
    enabled: boolean;
    userPerMin: number;
    publicPerMin: number;
    /** Refused credentials (bad JWT, internal key or MCP key) per client IP per minute. */
    authFailuresPerMin: number;
  };
  /**
   * Browser origins allowed to call the gateway cross-origin and to open the collaboration
   * WebSocket (CORS_ORIGINS, comma-separated, e.g. `https://wiki.example.com`); none by default.
   */
  corsOrigins: string[];
  /**
   * Where the built browser app is (WEB_DIR): `index.html` and hashed files under `assets/`.
   * Default: the repository's `web/dist`, found from this package's place, not the working folder.
   */
  webDir: string;
}

/** The repository's `web/dist`, two folders above this file (gateway/src or gateway/dist). */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** WEB_DIR: a folder; a relative one is taken from the working folder, as a shell would. */
const webDir = envVar((raw): string => {
  const value = raw?.trim();
  if (!value) return DEFAULT_WEB_DIR;
  return isAbsolute(value) ? resolve(value) : resolve(process.cwd(), value);
});

/** GATEWAY_SERVICES: names of services (repeats dropped), or `all`. */
const serviceList = envVar((raw): ServiceName[] => {
  const value = raw?.trim();
  // The collaboration server answers /health/ready over HTTP beside its WebSocket: it counts too.
  if (!value || value === 'all') return [...SERVICE_NAMES];
  const names = listItems(value);
  const unknown = names.find((n) => !(SERVICE_NAMES as readonly string[]).includes(n));
  if (unknown) refuse(`names an unknown service "${unknown}" (known: ${SERVICE_NAMES.join(', ')})`);
  return names as ServiceName[];
});

/** CORS_ORIGINS: origins only (scheme, host and port), repeats dropped. */
const origins = envVar((raw): string[] =>
  listItems(raw?.trim() ?? '').map((value) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {}
    // An origin is scheme, host and port: nothing else would ever equal a browser's Origin header.
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== value.replace(/\/$/, '')) {
      refuse(`must list origins like https://wiki.example.com, got "${value}"`);
    }
    return parsed.origin;
  }),
);

const trustProxy = envVar((raw): boolean | number | string => {
  const value = raw?.trim();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^[0-9a-fA-F.:/, ]+$/.test(value)) refuse(`must be true, false, a hop count or addresses, got "${value}"`);
  return value;
});

/** A bad value names its variable (ConfigError). */
export function loadGatewaySettings(env: Env): GatewaySettings {
  const read = readEnv(env, {
    GATEWAY_SERVICES: serviceList,
    TRUST_PROXY: trustProxy,
    RATE_LIMIT_ENABLED: flag(true),
    RATE_LIMIT_USER_PER_MIN: wholeNumber(600, { min: 1 }),
    RATE_LIMIT_PUBLIC_PER_MIN: wholeNumber(120, { min: 1 }),
    RATE_LIMIT_AUTH_FAILURES_PER_MIN: wholeNumber(20, { min: 1 }),
    CORS_ORIGINS: origins,
    WEB_DIR: webDir,
  });
  return {
    auth: loadAuthSettings(env),
    services: read.GATEWAY_SERVICES,
    trustProxy: read.TRUST_PROXY,
    rateLimit: {
      enabled: read.RATE_LIMIT_ENABLED,
      userPerMin: read.RATE_LIMIT_USER_PER_MIN,
      publicPerMin: read.RATE_LIMIT_PUBLIC_PER_MIN,
      authFailuresPerMin: read.RATE_LIMIT_AUTH_FAILURES_PER_MIN,
    },
    corsOrigins: read.CORS_ORIGINS,
    webDir: read.WEB_DIR,
  };
}
