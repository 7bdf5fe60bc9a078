import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, repoRoot } from './index.js';

const STRONG_KEY = 'q3V9xK2mT8pL5nR7wY4zB6cD1fG0hJ8s';
const STRONG_SECRET = 'Z7yX5wV3uT1sR9qP7oN5mL3kJ1iH9gF7';

/** A production configuration that starts, with the given secrets. */
function production(secrets: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'cfg-prod-'))) {
  return loadConfig({
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    INTERNAL_API_KEY: STRONG_KEY,
    INTERNAL_TOKEN_SECRET: STRONG_SECRET,
    ...secrets,
  });
}

function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the configuration to be refused');
}

/** The secret values the repository publishes in its deployment examples. */
function publishedExampleValues(): string[] {
  const files = ['k8s/base/secret.example.yaml', 'deploy/env.example', 'docker-compose.yml', 'README.md'];
  const values: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    for (const match of text.matchAll(/(?:INTERNAL_API_KEY|INTERNAL_TOKEN_SECRET)\s*[:=]\s*([^\s$#`'"|]+)/g)) {
      values.push(match[1]!);
    }
  }
  return values;
}

describe('production secrets', () => {
  it('starts with two long, random, different secrets', () => {
    const config = production({});
    expect(config.internalApiKey).toBe(STRONG_KEY);
    expect(config.internalTokenSecret).toBe(STRONG_SECRET);
  });

  it.each([
    ['the old compose default', 'INTERNAL_API_KEY', 'change-me-internal-api-key'],
    ['the old compose default', 'INTERNAL_TOKEN_SECRET', 'change-me-internal-token-secret'],
    ['the k8s example (32 characters)', 'INTERNAL_API_KEY', 'change-me-to-a-long-random-value'],
    ['the k8s example', 'INTERNAL_TOKEN_SECRET', 'change-me-to-another-long-random-value'],
    ['a common stand-in in another spelling', 'INTERNAL_API_KEY', 'CHANGE_ME_CHANGE_ME_CHANGE_ME_CHANGE_ME'],
    ['a long value that says it is an example', 'INTERNAL_TOKEN_SECRET', 'example-secret-0123456789abcdefghij'],
    ['a value under 32 characters', 'INTERNAL_API_KEY', 'k2J9x-Lm4Q7pR1sT8vW3y'],
    ['a value of one repeated character', 'INTERNAL_TOKEN_SECRET', 'a'.repeat(48)],
  ])('refuses %s for %s, naming the variable and not the value', (_what, variable, value) => {
    const error = refusal(() => production({ [variable]: value }));
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain(value);
  });

  it('refuses every secret value published in the repository examples', () => {
    for (const value of publishedExampleValues()) {
      if (value.length < 16) continue; // refused by the general 16-character rule already
      const error = refusal(() => production({ INTERNAL_API_KEY: value }));
      expect(error.variable, value).toBe('INTERNAL_API_KEY');
    }
  });

  it('refuses the same value for both secrets', () => {
    const error = refusal(() => production({ INTERNAL_API_KEY: STRONG_KEY, INTERNAL_TOKEN_SECRET: STRONG_KEY }));
    expect(error.variable).toBe('INTERNAL_TOKEN_SECRET');
    expect(error.message).toContain('INTERNAL_API_KEY');
    expect(error.message).not.toContain(STRONG_KEY);
  });

  it('refuses a secret copied from the development secrets of the data folder', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-prod-'));
    const generated = loadConfig({ DATA_DIR: dataDir }).internalTokenSecret;
    const error = refusal(() => production({ INTERNAL_TOKEN_SECRET: generated }, dataDir));
    expect(error.variable).toBe('INTERNAL_TOKEN_SECRET');
    expect(error.message).not.toContain(generated);
  });

  it('docker-compose.yml has no fallback value for either secret (compose refuses to start without them)', () => {
    const compose = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');
    for (const variable of ['INTERNAL_API_KEY', 'INTERNAL_TOKEN_SECRET']) {
      const line = compose.split('\n').find((l) => l.trim().startsWith(`${variable}:`));
      expect(line, variable).toMatch(new RegExp(`^\\s*${variable}: \\$\\{${variable}:\\?[^}]+\\}$`));
    }
  });

  it('keeps development and test starts as they were', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-dev-'));
    const dev = loadConfig({
      DATA_DIR: dataDir,
      INTERNAL_API_KEY: 'change-me-internal-api-key',
      INTERNAL_TOKEN_SECRET: 'change-me-internal-api-key',
    });
    expect(dev.internalApiKey).toBe('change-me-internal-api-key');
  });
});
