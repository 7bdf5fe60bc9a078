import type { Config } from '@wiki/config';
import { cleanupConfig, eventually, isolatedConfig, type JwksServer, startJwks } from '@wiki/testing';
import { answers, type Launch, launchPlatform, listeners } from './launch.js';

/**
 * Issue 11, point 11: the parts `npm start` launched stop with it, even when it dies without
 * passing a signal on (SIGKILL of the launcher, a closed terminal).
 */
describe('npm start killed with SIGKILL', () => {
  let jwks: JwksServer;
  let config: Config;
  let launch: Launch | undefined;
  let allStopped = false;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    launch = await launchPlatform(config, jwks);
  }, 120_000);

  afterAll(async () => {
    // Only after a failure: end what still listens on the ports by pid, so no orphan is left.
    for (const port of allStopped ? [] : (launch?.ports ?? [])) {
      for (const pid of listeners(port)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 60_000);

  it('leaves no part answering on its port', async () => {
    const { child, ports, gatewayUrl } = launch!;
    expect((await fetch(`${gatewayUrl}/health/live`)).status).toBe(200);
    expect(await Promise.all(ports.map(answers))).toEqual(ports.map(() => true));

    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Each part notices its launcher is gone and stops; the bound only keeps a failure from hanging.
    await eventually(async () => expect(await Promise.all(ports.map(answers))).toEqual(ports.map(() => false)), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    allStopped = true;
  }, 30_000);
});
