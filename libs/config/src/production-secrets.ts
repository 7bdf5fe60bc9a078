/**
 * What a production start refuses for the two shared secrets (INTERNAL_API_KEY, INTERNAL_TOKEN_SECRET):
 * a value anyone can read in this repository or guess, one too short to resist guessing, and the
 * same value for both (a leaked internal key would then also forge identity tokens).
 */

export const PRODUCTION_SECRET_MIN_LENGTH = 32;

/**
 * Values published in the repository's examples (compose, k8s, README, env example, as they were or
 * are) and the usual stand-ins. Compared after `normalise`, so case and separators do not matter.
 */
export const KNOWN_PLACEHOLDERS: readonly string[] = [
  'change-me-internal-api-key',
  'change-me-internal-token-secret',
  'change-me-to-a-long-random-value',
  'change-me-to-another-long-random-value',
  'change-me',
  'changeme',
  'changeit',
  'secret',
  'password',
  'internal-api-key',
  'internal-token-secret',
  'dev-internal-api-key',
  'dev-internal-token-secret',
  'test',
  'default',
  'admin',
  'letmein',
  'your-secret-here',
  'replace-me',
  'todo',
  'xxx',
];

/** Words whose presence marks a value as a stand-in however long it is, e.g. `change-me-please-1234…`. */
const PLACEHOLDER_WORDS = [
  'changeme',
  'changeit',
  'replaceme',
  'placeholder',
  'example',
  'yoursecret',
  'notsecret',
  'insecure',
  'dummy',
];

/** Lower case, letters and digits only: `Change_Me`, `change-me` and `CHANGEME` compare equal. */
function normalise(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const PLACEHOLDER_SET = new Set(KNOWN_PLACEHOLDERS.map(normalise));

/**
 * Why `value` is not fit to be a production secret, or undefined when it is. The reason never
 * quotes the value: it ends up in the start-up error, which goes to logs.
 */
export function weakSecretReason(value: string, devValues: readonly string[] = []): string | undefined {
  const plain = normalise(value);
  if (PLACEHOLDER_SET.has(plain) || PLACEHOLDER_WORDS.some((word) => plain.includes(word))) {
    return 'is a known placeholder value; set a random secret (e.g. `openssl rand -base64 32`)';
  }
  if (devValues.includes(value)) {
    return 'is a generated development secret from DATA_DIR/dev-secrets.json; set a fresh one for production';
  }
  if (value.length < PRODUCTION_SECRET_MIN_LENGTH) {
    return `must be at least ${PRODUCTION_SECRET_MIN_LENGTH} characters long when NODE_ENV=production`;
  }
  if (new Set(value).size < 8) return 'has too few distinct characters to be a random secret';
  return undefined;
}
