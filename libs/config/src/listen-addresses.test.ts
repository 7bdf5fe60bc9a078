import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, listenAddresses, loadConfig } from './index.js';

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'cfg-')), ...env });

describe('listenAddresses: the API and /metrics apart (ARCHITECTURE 5.14)', () => {
  it("puts /metrics on the part's own port + 1000 by default, on the API's host", () => {
    const config = load({ HOST: '10.1.2.3' });
    expect(listenAddresses(config, config.ports.document)).toEqual({
      api: { host: '10.1.2.3', port: 8082 },
      metrics: { host: '10.1.2.3', port: 9082 },
    });
    // Every interface when HOST is unset, as the API.
    expect(listenAddresses(load({}), 8085).metrics).toEqual({ host: '0.0.0.0', port: 9085 });
  });

  it("keeps the gateway's /metrics on loopback unless METRICS_HOST says otherwise", () => {
    const config = load({ PORT: '8080' });
    expect(listenAddresses(config, config.gatewayPort, { facesNetwork: true })).toEqual({
      api: { host: '0.0.0.0', port: 8080 },
      metrics: { host: '127.0.0.1', port: 9080 },
    });
    const opened = load({ METRICS_HOST: '0.0.0.0' });
    expect(listenAddresses(opened, 8080, { facesNetwork: true }).metrics.host).toBe('0.0.0.0');
  });

  it('gives a replica at port + 100 its own metrics port', () => {
    const config = load({});
    expect(listenAddresses(config, 8082 + 100).metrics.port).toBe(9182);
  });

  it('takes METRICS_PORT as it is, 0 included (any free port: ask the listener which)', () => {
    expect(listenAddresses(load({ METRICS_PORT: '9464' }), 8082).metrics.port).toBe(9464);
    expect(listenAddresses(load({ METRICS_PORT: '0' }), 8082).metrics.port).toBe(0);
    // An API on port 0 (tests) gets its metrics on any free port too.
    expect(listenAddresses(load({}), 0).metrics.port).toBe(0);
  });

  it('refuses /metrics on the API port, a default past 65535, and a METRICS_PORT that is not a port', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error('expected a ConfigError');
    };
    expect(refusal(() => listenAddresses(load({ METRICS_PORT: '8082' }), 8082))).toMatch(
      /METRICS_PORT must differ from the API's port \(8082\)/,
    );
    expect(refusal(() => listenAddresses(load({}), 65000))).toMatch(
      /METRICS_PORT must be set: the default, port 65000/,
    );
    expect(refusal(() => load({ METRICS_PORT: '70000' }))).toMatch(/METRICS_PORT must be between 0 and 65535/);
    expect(refusal(() => load({ METRICS_PORT: 'nine' }))).toMatch(/METRICS_PORT must be a whole number/);
  });
});
