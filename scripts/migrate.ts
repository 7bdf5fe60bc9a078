// `npm run migrate`: creates each service's database when missing and applies its migrations:
// the same sets, through the same service kit function, as the service's own start-up. The sets
// come from the definition each service exports from its src/service.ts.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Config, ConfigError, loadConfig, redactUrl, repoRoot, SERVICE_NAMES } from '@wiki/config';
import { prepareDatabase, type ServiceDefinition } from '@wiki/service';

/** Every `ServiceDefinition` a service module exports (`workspaceService`, `documentService`, ...). */
async function definitionsIn(file: string): Promise<ServiceDefinition[]> {
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  return Object.values(module).filter(
    (value): value is ServiceDefinition =>
      typeof value === 'object' && value !== null && 'migrations' in value && 'buildApp' in value,
  );
}

async function serviceDefinitions(): Promise<ServiceDefinition[]> {
  const dir = join(repoRoot, 'services');
  const found: ServiceDefinition[] = [];
  for (const name of readdirSync(dir)) {
    const source = join(dir, name, 'src', 'service.ts');
    if (existsSync(source)) found.push(...(await definitionsIn(source)));
  }
  // Workspace first: the others read users and memberships from it.
  return found.sort((a, b) => SERVICE_NAMES.indexOf(a.name) - SERVICE_NAMES.indexOf(b.name));
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

const definitions = await serviceDefinitions();
if (definitions.length === 0) process.stderr.write('No service defines migrations: nothing to do.\n');

let failed = 0;
for (const definition of definitions) {
  const url = config.databaseUrls[definition.name];
  try {
    const { created, applied } = await prepareDatabase(definition, config);
    const what = applied.length ? `applied ${applied.join(', ')}` : 'up to date';
    console.log(`${definition.name}: ${redactUrl(url)}${created ? ' (created)' : ''}: ${what}`);
  } catch (error) {
    failed += 1;
    console.error(`${definition.name}: ${redactUrl(url)}: ${(error as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);
