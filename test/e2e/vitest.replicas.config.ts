import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm run test:replicas` (test/e2e/run-replicas.mjs): the files ending in `.replicas.ts`, which
 * the default projects of vitest.config.ts do not include, with the same aliases.
 */
export default defineConfig({
  root,
  resolve: base.resolve,
  test: {
    globals: true,
    include: ['test/e2e/**/*.replicas.ts'],
    testTimeout: 60_000,
    hookTimeout: 150_000,
  },
});
