// Reachability checks for the infrastructure every part needs, with a message that names what
// is down and how to start it; local-servers.mjs uses the same checks before and after starting
// one. Each check speaks just enough of the protocol to know that the right server answers
// (Postgres SSLRequest, NATS INFO with JetStream, Redis PING).
import { connect } from 'node:net';

const TIMEOUT_MS = 2000;

/**
 * Opens a TCP connection, optionally writes `hello`, and resolves with the first bytes the
 * server sends (or '' when `expectReply` is false), or rejects with the connection error.
 */
function talk(host, port, { hello, expectReply = true } = {}) {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host, port });
    const done = (fn, value) => {
      socket.destroy();
      fn(value);
    };
    socket.setTimeout(TIMEOUT_MS, () => done(reject, new Error(`no answer within ${TIMEOUT_MS} ms`)));
    socket.once('error', (error) => done(reject, error));
    socket.once('connect', () => {
      if (hello) socket.write(hello);
      if (!expectReply) done(resolvePromise, '');
    });
    socket.once('data', (data) => done(resolvePromise, data));
    // Settles the promise when the server hangs up without a word (no-op once settled).
    socket.once('close', () => reject(new Error('the server closed the connection without answering')));
  });
}

/** True when something accepts TCP connections on host:port. */
export async function isListening(host, port) {
  try {
    await talk(host, port, { expectReply: false });
    return true;
  } catch {
    return false;
  }
}

function endpoint(url, defaultPort) {
  const parsed = new URL(url);
  // A Postgres URL may name a Unix socket in ?host=; nothing to probe over TCP then.
  if (!parsed.hostname) return undefined;
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || defaultPort) };
}

// The startup packet that asks a Postgres server whether it speaks TLS: it answers 'S' or 'N'.
const PG_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export async function checkPostgres({ host, port }) {
  const reply = await talk(host, port, { hello: PG_SSL_REQUEST });
  const first = String.fromCharCode(reply[0]);
  if (first !== 'S' && first !== 'N') throw new Error('something answers there, but not PostgreSQL');
}

export async function checkNats({ host, port }) {
  const reply = (await talk(host, port)).toString('utf8');
  if (!reply.startsWith('INFO ')) throw new Error('something answers there, but not NATS');
  let info;
  try {
    info = JSON.parse(reply.slice(5).split('\r\n')[0]);
  } catch {
    return; // an INFO line split across packets: NATS answers, good enough
  }
  if (info.jetstream !== true) throw new Error('NATS answers but JetStream is off (start nats-server with -js)');
}

export async function checkRedis({ host, port }, tls) {
  if (tls) return void (await talk(host, port, { expectReply: false }));
  const reply = (await talk(host, port, { hello: 'PING\r\n' })).toString('utf8');
  // -NOAUTH / -ERR still proves a Redis server answers; the services log in themselves.
  if (!reply.startsWith('+') && !reply.startsWith('-')) throw new Error('something answers there, but not Redis');
}

// npm start / npm test start a missing server themselves when its variable is unset (or names the
// default address), so these are the ways left when it points elsewhere.
const HOW_TO_START = {
  PostgreSQL: [
    'Unset the variable: npm start / npm test then run one under .data/ (scripts/lib/local-servers.mjs)',
    'Docker:  docker compose up -d postgres   (then PG_URL=postgres://postgres:change-me@127.0.0.1:5432)',
  ],
  NATS: [
    'Unset the variable: npm start / npm test then run one under .data/ (scripts/lib/local-servers.mjs)',
    'Docker:  docker compose up -d nats',
  ],
  Redis: [
    'Unset the variable: npm start / npm test then run one under .data/ (scripts/lib/local-servers.mjs)',
    'Docker:  docker compose up -d redis',
  ],
};

/**
 * Checks PostgreSQL (the server of PG_URL and of each service's database URL), NATS and Redis.
 * Resolves with one message per unreachable dependency (empty when all answer).
 */
export async function checkDependencies(config, serviceNames) {
  const { redactUrl } = await import('@wiki/config');
  const checks = [];
  const seen = new Set();
  const add = (what, variable, url, defaultPort, check) => {
    const target = endpoint(url, defaultPort);
    if (!target) return;
    const key = `${what} ${target.host}:${target.port}`;
    if (seen.has(key)) return;
    seen.add(key);
    checks.push({ what, variable, url, run: () => check(target) });
  };
  const pgVariable = (name) =>
    process.env[`${name.toUpperCase()}_DATABASE_URL`] ? `${name.toUpperCase()}_DATABASE_URL` : 'PG_URL';
  if (serviceNames.length === 0) add('PostgreSQL', 'PG_URL', config.pgUrl, 5432, checkPostgres);
  for (const name of serviceNames) {
    if (config.databaseUrls[name]) add('PostgreSQL', pgVariable(name), config.databaseUrls[name], 5432, checkPostgres);
  }
  add('NATS', 'NATS_URL', config.natsUrl, 4222, checkNats);
  add('Redis', 'REDIS_URL', config.redisUrl, 6379, (target) =>
    checkRedis(target, config.redisUrl.startsWith('rediss:')),
  );

  const results = await Promise.all(
    checks.map(async (check) => {
      try {
        await check.run();
        return undefined;
      } catch (error) {
        const reason = error.code ?? error.message;
        return [
          `  ${check.what} is not reachable at ${redactUrl(check.url)} (${check.variable}): ${reason}`,
          '  Start it, or point the variable at a running one:',
          ...HOW_TO_START[check.what].map((line) => `    ${line}`),
        ].join('\n');
      }
    }),
  );
  return results.filter(Boolean);
}
