import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './index.js';

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'cfg-')), ...env });

describe('EVENT_MAX_BYTES', () => {
  it('caps an event envelope at 256 KiB by default and takes another size', () => {
    expect(load({}).eventMaxBytes).toBe(256 * 1024);
    expect(load({ EVENT_MAX_BYTES: '524288' }).eventMaxBytes).toBe(512 * 1024);
  });

  it('refuses a cap too small for one bounded event (64 KiB of text, 1,000 ids)', () => {
    expect(() => load({ EVENT_MAX_BYTES: '65536' })).toThrow(ConfigError);
    expect(() => load({ EVENT_MAX_BYTES: '65536' })).toThrow(/EVENT_MAX_BYTES/);
    expect(() => load({ EVENT_MAX_BYTES: 'big' })).toThrow(/EVENT_MAX_BYTES/);
  });
});
