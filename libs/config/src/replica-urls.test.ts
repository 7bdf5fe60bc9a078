import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './index.js';

const dirs: string[] = [];
const load = (env: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  dirs.push(dir);
  return loadConfig({ DATA_DIR: dir, ...env });
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('<SERVICE>_URL with several replicas', () => {
  it('keeps one URL per service by default, derived from its port', () => {
    const config = load({ DOCUMENT_PORT: '9182' });
    expect(config.replicaUrls.document).toEqual(['http://127.0.0.1:9182']);
    expect(config.urls.document).toBe('http://127.0.0.1:9182');
  });

  it('reads a comma-separated list (spaces and trailing slashes dropped); urls holds the first', () => {
    const config = load({ DOCUMENT_URL: 'http://10.0.0.1:8082/, http://10.0.0.2:8082 ,' });
    expect(config.replicaUrls.document).toEqual(['http://10.0.0.1:8082', 'http://10.0.0.2:8082']);
    expect(config.urls.document).toBe('http://10.0.0.1:8082');
    expect(config.replicaUrls.search).toEqual([config.urls.search]);
  });

  it('refuses a list with an item that is not an http(s) URL, naming the variable', () => {
    expect(() => load({ COMMENT_URL: 'http://a:1,ftp://b:2' })).toThrow(ConfigError);
    expect(() => load({ COMMENT_URL: 'http://a:1,not a url' })).toThrow(/COMMENT_URL/);
  });
});
