import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const libs = [
  'config',
  'cache',
  'tracing',
  'http',
  'db',
  'auth',
  'service-client',
  'projections',
  'events',
  'limits',
  'storage',
  'service',
  'testing',
  'blocks',
];

// Tests run the TypeScript sources of the libs, not their compiled dist.
const alias = [
  ...libs.map((lib) => ({ find: `@wiki/${lib}`, replacement: `${root}libs/${lib}/src/index.ts` })),
  { find: '@wiki/gateway', replacement: `${root}gateway/src/service.ts` },
];

export default defineConfig({
  resolve: { alias },
  test: {
    globals: true,
    // vitest's default is one worker per core less one: a single file at a time on two cores,
    // where the integration files mostly wait on services, databases and NATS.
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          globals: true,
          include: ['{libs,gateway,services}/**/src/**/*.test.ts', 'web/src/**/*.test.ts'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          globals: true,
          include: ['{libs,gateway,services}/**/test/**/*.test.ts', 'test/**/*.test.ts', 'web/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
