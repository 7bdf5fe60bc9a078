import { createServer, type Server } from 'node:net';
import type { Config } from '@wiki/config';
import { createDatabasePool, sql } from '@wiki/db';
import { cleanupConfig, eventually, isolatedConfig, type JwksServer, startJwks } from '@wiki/testing';
import { answers, childrenOf, type Launch, launchPlatform, listeners } from './launch.js';

/**
 * Issue 24, point 2: `npm start` restarts a process that exits without being asked, alone, while
 * the others keep running and the gateway answers 503 for it (in separate mode, where each part is
 * a process); one that keeps failing at once is given up on (in both modes: by default the one
 * process of every part is what restarts); a stop during a restart leaves nothing behind.
 */

/** The one process listening on `port`. */
function pidOn(port: number): number {
  const pids = listeners(port);
  if (pids.length !== 1) throw new Error(`expected one process on port ${port}, found ${pids.join(', ') || 'none'}`);
  return pids[0];
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once the launcher's output matches `pattern` (bounded: a failure must not hang). */
function printed(launch: Launch, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  return eventually(
    () => {
      if (!pattern.test(launch.output()))
        throw new Error(`not printed yet: ${pattern}\n${launch.output().slice(-2000)}`);
    },
    { timeoutMs, intervalMs: 20 },
  );
}

function exitOf(launch: Launch): Promise<number | null> {
  const { child } = launch;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** After a failed test: ends what still listens on the launch's ports, by pid. */
function killLeftovers(launch: Launch | undefined): void {
  if (launch?.child.exitCode === null) launch.child.kill('SIGKILL');
  for (const port of launch?.ports ?? []) {
    for (const pid of listeners(port)) {
      if (pid === process.pid) continue; // a port this test occupies itself
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

describe('npm start --processes=separate: the document service killed with SIGKILL under a load of writes', () => {
  let jwks: JwksServer;
  let config: Config;
  let launch: Launch | undefined;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    launch = await launchPlatform(config, jwks, {}, { args: ['--only=workspace,document', '--processes=separate'] });
  }, 120_000);

  it('runs one process per part, as it says', async () => {
    const { child, ports } = launch!;
    const [gatewayPort, workspacePort, documentPort] = ports;
    const pids = [pidOn(workspacePort), pidOn(documentPort), pidOn(gatewayPort)];
    expect(new Set(pids).size).toBe(3);
    expect(childrenOf(child.pid!).sort()).toEqual([...pids].sort());
    expect(launch!.output()).toContain('Mode: separate processes, one per part.');
    await vi.waitFor(() =>
      expect(launch!.output()).toContain(
        `Processes: 3 (workspace pid ${pids[0]}, document pid ${pids[1]}, gateway pid ${pids[2]})`,
      ),
    );
  });

  afterAll(async () => {
    killLeftovers(launch);
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 60_000);

  it('is restarted alone; meanwhile the gateway answers 503, and no acknowledged write is lost or doubled', async () => {
    const { gatewayUrl, ports } = launch!;
    const [gatewayPort, workspacePort, documentPort] = ports;
    const token = await jwks.mint({ sub: 'idp|e2e-crash', email: 'crash@example.com', name: 'Crash' });
    const call = async (method: string, path: string, body?: unknown) => {
      try {
        const res = await fetch(`${gatewayUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), json: text ? JSON.parse(text) : null };
      } catch {
        return { status: 0, retryAfter: null, json: null }; // no answer at all (none expected: the gateway stays up)
      }
    };
    const workspace = await call('POST', '/api/v1/workspaces', { name: 'Crash' });
    expect(workspace.status).toBe(201);
    const workspaceId = workspace.json.data.id as string;
    // The document service learns of the workspace from its event.
    await eventually(
      async () => expect((await call('POST', '/api/v1/documents', { workspaceId, title: 'first' })).status).toBe(201),
      { timeoutMs: 15_000, intervalMs: 100 },
    );

    const pidsBefore = { gateway: pidOn(gatewayPort), workspace: pidOn(workspacePort), document: pidOn(documentPort) };

    // Each client creates a document, then retitles it; what was acknowledged is what must be there.
    const statuses = new Map<number, number>();
    const acknowledged = new Map<string, string>(); // document id -> the title of its last 2xx write
    const laterTitles = new Map<string, string>(); // document id -> a retitle that failed (it may still have happened)
    const createdTitles: string[] = [];
    let unavailableWithoutRetryAfter = 0;
    let writesAcknowledged = 0;
    let killedAt = 0;
    const unavailable = { first: 0, last: 0 };
    let loading = true;
    const count = (status: number, retryAfter: string | null) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 503) {
        if (!retryAfter) unavailableWithoutRetryAfter++;
        unavailable.first ||= Date.now();
        unavailable.last = Date.now();
      }
      if (status >= 200 && status < 300) writesAcknowledged++;
    };
    const client = async (index: number) => {
      for (let n = 0; loading; n++) {
        const title = `client ${index} document ${n}`;
        createdTitles.push(title);
        const created = await call('POST', '/api/v1/documents', { workspaceId, parentId: null, title });
        count(created.status, created.retryAfter);
        if (created.status !== 201) continue;
        const id = created.json.data.id as string;
        acknowledged.set(id, title);
        const retitled = await call('PUT', `/api/v1/documents/${id}`, { title: `${title} retitled` });
        count(retitled.status, retitled.retryAfter);
        if (retitled.status === 200) acknowledged.set(id, `${title} retitled`);
        else laterTitles.set(id, `${title} retitled`);
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    try {
      await eventually(() => expect(writesAcknowledged).toBeGreaterThan(20), { timeoutMs: 30_000, intervalMs: 20 });
      killedAt = Date.now();
      process.kill(pidsBefore.document, 'SIGKILL');
      // Down for at least its 0.5 s back-off: the gateway's health says so meanwhile.
      const health = await fetch(`${gatewayUrl}/actuator/health`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { services: Record<string, string> }).services).toEqual({
        workspace: 'UP',
        document: 'DOWN',
      });
      // Bounded as the launcher bounds a restart's readiness (--timeout, 90 s).
      await printed(launch!, /document: back up and ready after attempt 1\./, 90_000);
      // The load goes on until the restarted service has taken a good number of writes.
      const before = writesAcknowledged;
      await eventually(() => expect(writesAcknowledged).toBeGreaterThan(before + 20), {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
    } finally {
      loading = false;
      await Promise.all(clients);
    }
    const answers503 = statuses.get(503) ?? 0;
    console.info(
      `crash under load: answers ${JSON.stringify(Object.fromEntries(statuses))}; 503s from ` +
        `${unavailable.first - killedAt} to ${unavailable.last - killedAt} ms after the kill`,
    );

    const output = launch!.output();
    expect(output).toMatch(/document was killed by SIGKILL; restarting in 0\.5 s \(attempt 1\)\./);
    expect(output).toMatch(/document: starting again \(attempt 1, pid \d+\)\./);
    expect(output).not.toMatch(/stopping the others/);
    // Only the document service is a new process; the gateway and the workspace service never stopped.
    const pidsAfter = { gateway: pidOn(gatewayPort), workspace: pidOn(workspacePort), document: pidOn(documentPort) };
    expect(pidsAfter.gateway).toBe(pidsBefore.gateway);
    expect(pidsAfter.workspace).toBe(pidsBefore.workspace);
    expect(pidsAfter.document).not.toBe(pidsBefore.document);
    expect(output).toContain(`document: starting again (attempt 1, pid ${pidsAfter.document}).`);
    expect((await fetch(`${gatewayUrl}/actuator/health`)).status).toBe(200);

    // Writes during the gap were refused honestly: 503 with Retry-After, never a 500.
    expect([...statuses.keys()].filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
    expect(answers503).toBeGreaterThan(0);
    expect(unavailableWithoutRetryAfter).toBe(0);

    // Every acknowledged write reads back through the gateway.
    for (const [id, title] of acknowledged) {
      const read = await call('GET', `/api/v1/documents/${id}`);
      expect({ id, status: read.status }).toEqual({ id, status: 200 });
      // A retitle that failed after being sent may still have happened.
      expect([title, laterTitles.get(id)]).toContain(read.json.data.title);
    }
    // And nothing was created twice: every title the clients sent is stored at most once.
    const pool = await createDatabasePool(config.databaseUrls.document, { maximumPoolSize: 1 });
    try {
      const rows = await pool.any(
        sql.unsafe`SELECT id, title FROM documents WHERE workspace_id = ${workspaceId} AND title <> 'first'`,
      );
      const stored = new Map<string, number>();
      for (const row of rows as readonly { title: string }[]) {
        const created = row.title.replace(/ retitled$/, '');
        stored.set(created, (stored.get(created) ?? 0) + 1);
      }
      expect([...stored].filter(([, n]) => n > 1)).toEqual([]);
      expect([...stored.keys()].filter((title) => !createdTitles.includes(title))).toEqual([]);
      expect(rows.length).toBeGreaterThanOrEqual([...acknowledged.keys()].length);
    } finally {
      await pool.end();
    }
  }, 180_000);

  it('stops everything cleanly on SIGTERM while a crashed part waits out its back-off', async () => {
    const [gatewayPort, workspacePort, documentPort] = launch!.ports;
    const pids = [pidOn(gatewayPort), pidOn(workspacePort), pidOn(documentPort)];
    process.kill(pidOn(documentPort), 'SIGKILL');
    // Its second crash within a minute: a back-off of 1 s, time enough to stop during it.
    await printed(launch!, /document was killed by SIGKILL; restarting in 1 s \(attempt 2\)\./);
    launch!.child.kill('SIGTERM');
    expect(await exitOf(launch!)).toBe(0);
    expect(launch!.output()).not.toMatch(/document: starting again \(attempt 2/);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(await Promise.all([gatewayPort, workspacePort, documentPort].map(answers))).toEqual([false, false, false]);
  }, 60_000);
});

describe.each([
  // By default the document service runs in the one process with the gateway: that process is what
  // crashes, restarts and is given up on.
  { mode: 'one process', args: [], crashed: 'platform' },
  { mode: 'separate processes', args: ['--processes=separate'], crashed: 'document' },
])('npm start ($mode): a process that fails at once each time it is restarted', ({ args, crashed }) => {
  let jwks: JwksServer;
  let config: Config;
  let launch: Launch | undefined;
  let portTaken: Server | undefined;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    launch = await launchPlatform(config, jwks, {}, { args: ['--only=document', ...args] });
  }, 120_000);

  afterAll(async () => {
    killLeftovers(launch);
    await new Promise((resolve) => (portTaken ? portTaken.close(resolve) : resolve(undefined)));
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 60_000);

  it('is restarted with a growing back-off, then given up on loudly, and everything stops', async () => {
    const [gatewayPort, , documentPort] = launch!.ports;
    const gatewayPid = pidOn(gatewayPort);
    process.kill(pidOn(documentPort), 'SIGKILL');
    // Something else takes its port once it is free: each new process exits at once (EADDRINUSE).
    portTaken = await eventually(
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer((socket) => socket.destroy());
          server.once('error', reject);
          server.listen({ port: documentPort, host: '127.0.0.1' }, () => resolve(server));
        }),
      { timeoutMs: 5_000, intervalMs: 5 },
    );

    expect(await exitOf(launch!)).toBe(1);
    const output = launch!.output();
    expect(output).toContain(`${crashed} was killed by SIGKILL; restarting in 0.5 s (attempt 1).`);
    expect(output).toContain(`${crashed} exited with code 1; restarting in 1 s (attempt 2).`);
    expect(output).toContain(`${crashed} exited with code 1; restarting in 2 s (attempt 3).`);
    expect(output).toContain(`${crashed} exited with code 1; restarting in 4 s (attempt 4).`);
    expect(output).toContain(`GIVING UP on ${crashed}: it exited with code 1, 5 failures within 2 min.`);
    expect(output).toMatch(/EADDRINUSE/); // its last log lines say why
    expect(output).not.toMatch(/restarting in 8 s/);
    expect(output).not.toMatch(/back up and ready/);
    expect(isRunning(gatewayPid)).toBe(false);
    expect(await answers(gatewayPort)).toBe(false);
    // 7.5 s of back-off and four start-ups, each up to 30 s on a machine as busy as ours got.
  }, 180_000);
});

describe('npm start --processes=separate: its IPC channel closing while a crashed part is starting again', () => {
  let jwks: JwksServer;
  let config: Config;
  let launch: Launch | undefined;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    launch = await launchPlatform(config, jwks, {}, { args: ['--only=document', '--processes=separate'], ipc: true });
  }, 120_000);

  afterAll(async () => {
    killLeftovers(launch);
    await jwks?.close();
    if (config) await cleanupConfig(config);
  }, 60_000);

  it('refuses a requested restart of it meanwhile, then stops the new process too, leaving nothing running', async () => {
    const [gatewayPort, , documentPort] = launch!.ports;
    const gatewayPid = pidOn(gatewayPort);
    process.kill(pidOn(documentPort), 'SIGKILL');
    await printed(launch!, /document: starting again \(attempt 1, pid \d+\)\./);
    const restartedPid = Number(/document: starting again \(attempt 1, pid (\d+)\)/.exec(launch!.output())?.[1]);
    // The new process is still starting (it listens only once its database and consumers are up).
    expect(launch!.output()).not.toMatch(/back up and ready/);
    // A rolling restart's request does not race the crash restart for the port.
    const answer = new Promise((resolve) => {
      const onMessage = (message: { type?: string }) => {
        if (message.type !== 'restarted') return; // the earlier 'up'
        launch!.child.off('message', onMessage);
        resolve(message);
      };
      launch!.child.on('message', onMessage);
    });
    launch!.child.send({ type: 'restart', part: 'document' });
    expect(await answer).toEqual({
      type: 'restarted',
      part: 'document',
      error: 'document is being restarted after a crash',
    });
    launch!.child.disconnect();
    expect(await exitOf(launch!)).toBe(0);
    expect([gatewayPid, restartedPid].filter(isRunning)).toEqual([]);
    expect(await Promise.all([gatewayPort, documentPort].map(answers))).toEqual([false, false]);
  }, 60_000);
});
