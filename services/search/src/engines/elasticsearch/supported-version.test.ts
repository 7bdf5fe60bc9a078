import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_ELASTICSEARCH_MAJOR } from './engine.js';

const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The installed client's package.json (its `exports` do not list it, so found from the entry point). */
function installedClient(): { name: string; version: string } {
  let dir = dirname(createRequire(import.meta.url).resolve('@elastic/elasticsearch'));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
      if (pkg.name === '@elastic/elasticsearch') return pkg;
    }
    if (dirname(dir) === dir) throw new Error('@elastic/elasticsearch is not installed');
    dir = dirname(dir);
  }
}

const major = (version: string) => Number(/^(\d+)\./.exec(version)?.[1]);

/**
 * The supported Elasticsearch server major is the installed client's (a client sends
 * `compatible-with=<its major>`, which servers of another major refuse), and the READMEs and
 * compose claim that major and no other. Upgrading the client without the rest fails here.
 */
describe('the Elasticsearch versions the project claims', () => {
  it('supports the server major of the installed client, pinned exactly in the search service', () => {
    const client = installedClient();
    expect(major(client.version)).toBe(SUPPORTED_ELASTICSEARCH_MAJOR);
    const pinned = JSON.parse(read('services/search/package.json')).dependencies['@elastic/elasticsearch'];
    expect(pinned).toBe(client.version);
  });

  it('states that major, and only it, in the READMEs, and runs it in docker compose', () => {
    const supported = `Elasticsearch ${SUPPORTED_ELASTICSEARCH_MAJOR}.x servers`;
    const search = read('services/search/README.md');
    expect(search).toContain(
      `Supported: ${supported}, through \`@elastic/elasticsearch\` ${installedClient().version}`,
    );
    expect(read('README.md')).toContain(`${supported} only`);
    for (const text of [search, read('README.md')]) {
      expect(text).not.toMatch(/Elasticsearch \d+ or \d+|Elasticsearch \d+\/\d+/);
    }
    const image = /image: docker\.elastic\.co\/elasticsearch\/elasticsearch:(\S+)/.exec(read('docker-compose.yml'));
    expect(major(image?.[1] ?? '')).toBe(SUPPORTED_ELASTICSEARCH_MAJOR);
  });
});
