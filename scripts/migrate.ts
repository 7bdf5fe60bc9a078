// `npm run migrate`: creates each service's database when missing and applies its SQL
// migrations, the same sets the service applies at start-up. Only services with a migrations/
// folder own a database; the others are skipped.
//
// Which sets a service applies: the `migrationSets` its dist/service.js exports, when it does;
// otherwise the shared event tables (libs/events), the membership projection (libs/auth) when
// its src/service.ts uses it, then its own migrations/ (table pgmigrations).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { membershipMigrations } from '@wiki/auth';
import {
  type Config,
  ConfigError,
  loadConfig,
  redactUrl,
  repoRoot,
  SERVICE_NAMES,
  type ServiceName,
} from '@wiki/config';
import { ensureDatabase, type MigrationSet, migrate } from '@wiki/db';
import { eventsMigrations } from '@wiki/events';

function servicesWithMigrations(): ServiceName[] {
  const dir = join(repoRoot, 'services');
  const present = new Set(readdirSync(dir).filter((name) => existsSync(join(dir, name, 'migrations'))));
  return SERVICE_NAMES.filter((name) => present.has(name)); // workspace first
}

async function migrationSetsOf(service: ServiceName): Promise<MigrationSet[]> {
  const dir = join(repoRoot, 'services', service);
  const compiled = join(dir, 'dist', 'service.js');
  if (existsSync(compiled)) {
    const module = (await import(pathToFileURL(compiled).href)) as { migrationSets?: MigrationSet[] };
    if (Array.isArray(module.migrationSets)) return module.migrationSets;
  }
  const source = join(dir, 'src', 'service.ts');
  const usesMembership = existsSync(source) && readFileSync(source, 'utf8').includes('membershipMigrations');
  return [
    eventsMigrations,
    ...(usesMembership ? [membershipMigrations] : []),
    { dir: join(dir, 'migrations'), table: 'pgmigrations' },
  ];
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const services = servicesWithMigrations();
if (services.length === 0) process.stderr.write('No service has a migrations/ folder: nothing to do.\n');

let failed = 0;
for (const service of services) {
  const url = config.databaseUrls[service];
  try {
    const created = await ensureDatabase(url);
    const applied = await migrate(url, await migrationSetsOf(service));
    const what = applied.length ? `applied ${applied.join(', ')}` : 'up to date';
    console.log(`${service}: ${redactUrl(url)}${created ? ' (created)' : ''}: ${what}`);
  } catch (error) {
    failed += 1;
    console.error(`${service}: ${redactUrl(url)}: ${(error as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);
