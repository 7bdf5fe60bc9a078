import { mintDevToken } from '@wiki/auth';
import type { RequestSpec } from 'autocannon';
import { uploadForm } from './attachment.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { fillNotifications } from './notifications.js';
import { createRoots, creationBody, spreadCreations } from './seed.js';

/**
 * Every hot endpoint at 10 and 50 connections (issue 18), each beside a hello-world measured at the
 * same connection count just before, with req/s, the share of that baseline, p50/p99 and CPU per
 * request per part. The data each row reads is made here through the gateway: a workspace with 200
 * roots, a parent with 100 children, a chain for breadcrumbs, 50 documents to retitle and a hot one,
 * members, and a document with comment threads. The tree row reads the run's 10,000-document
 * workspace. Search (a page of 20 of 40 matching pages), the notification list and count (a user
 * with 500) and an attachment download (64 KiB) are rows too, each on its own service.
 */

export interface EndpointRow extends LoadResult {
  endpoint: string;
  /** req/s over the same-connection hello-world's. */
  share: number;
}

export interface EndpointReport {
  connections: number[];
  hello: LoadResult[];
  rows: EndpointRow[];
  /** Per endpoint: req/s at the highest connection count over req/s at the lowest. */
  scaling: Array<{ endpoint: string; ratio: number }>;
}

export interface Api {
  gatewayUrl: string;
  token: string;
}

export async function call<T = any>(
  api: Api,
  method: string,
  path: string,
  body?: unknown,
  token = api.token,
): Promise<T> {
  const res = await fetch(`${api.gatewayUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

const createIn = async (api: Api, workspaceId: string, title: string, parentId: string | null) =>
  (await call<{ data: { id: string } }>(api, 'POST', '/api/v1/documents', creationBody(workspaceId, title, parentId)))
    .data.id;

interface Fixture {
  rootsWorkspace: string;
  parentOf100: string;
  deepest: string;
  retitled: string[];
  hot: string;
  threadsDocument: string | null;
  membersWorkspace: string;
  searchParent: string;
  filesDocument: string;
}

async function prepare(api: Api, dataDir: string, withComments: boolean): Promise<Fixture> {
  const rootsWorkspace = (await call<{ data: { id: string } }>(api, 'POST', '/api/v1/workspaces', { name: 'Roots' }))
    .data.id;
  const roots = await createRoots(api.gatewayUrl, api.token, rootsWorkspace, 200, 32);
  const parentOf100 = roots[0] as string;
  for (let i = 0; i < 100; i += 20)
    await Promise.all(
      Array.from({ length: 20 }, (_, k) => createIn(api, rootsWorkspace, `Child ${i + k + 1}`, parentOf100)),
    );
  let deepest = roots[1] as string;
  for (let depth = 1; depth < 8; depth++) deepest = await createIn(api, rootsWorkspace, `Level ${depth}`, deepest);
  const retitled = roots.slice(100, 150);
  const hot = roots[150] as string;

  // 20 members besides the owner, invited and accepted.
  const membersWorkspace = rootsWorkspace;
  for (let i = 0; i < 20; i++) {
    const email = `bench-member-${i}-${Date.now()}@example.com`;
    const token = await mintDevToken(dataDir, email, `Member ${i}`);
    await call(api, 'GET', '/api/v1/users/me', undefined, token); // the account exists from its first request
    const invited = await call<{ data: { inviteLink: string } }>(
      api,
      'POST',
      `/api/v1/workspaces/${membersWorkspace}/members/invite`,
      { email, role: 'EDITOR' },
    );
    const inviteToken = String(invited.data.inviteLink).split('/invite/')[1];
    await call(api, 'POST', `/api/v1/invitations/${inviteToken}/accept`, undefined, token);
  }

  let threadsDocument: string | null = null;
  if (withComments) {
    threadsDocument = roots[2] as string;
    for (let i = 0; i < 20; i++)
      await call(api, 'POST', `/api/v1/comments/documents/${threadsDocument}/threads`, {
        anchor: { blockId: `block-${i}`, startOffset: 0, endOffset: 4, selectedText: 'Page' },
        comment: { content: `Thread ${i + 1}: a remark about this page.` },
      });
  }
  return {
    rootsWorkspace,
    parentOf100,
    deepest,
    retitled,
    hot,
    threadsDocument,
    membersWorkspace,
    // Roots no other row reads or writes, so that the roots and children rows read what they did.
    searchParent: roots[3] as string,
    filesDocument: roots[4] as string,
  };
}

/** The searched word: in no other title or text the bench makes (the index matches parts of words). */
const SEARCH_WORD = 'retrospective';
const SEARCH_MATCHES = 40;
/** The downloaded file: about a screenshot's size, random bytes (as incompressible as a PNG). */
const DOWNLOAD_BYTES = 64 * 1024;

/**
 * 40 pages of the roots workspace holding SEARCH_WORD (children of one root, so the roots and
 * children rows read what they did), answered once the index holds all of them. A search answers
 * at most 50, so 40 is a count that says every page is in.
 */
async function prepareSearch(api: Api, f: Fixture): Promise<string> {
  for (let i = 0; i < SEARCH_MATCHES; i += 20)
    await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        createIn(api, f.rootsWorkspace, `Sprint ${i + k + 1} ${SEARCH_WORD}`, f.searchParent),
      ),
    );
  const path = (limit: number) =>
    `/api/v1/documents/search?workspaceId=${f.rootsWorkspace}&query=${SEARCH_WORD}&limit=${limit}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = (await call<{ data: unknown[] }>(api, 'GET', path(50))).data.length;
    if (found === SEARCH_MATCHES) break;
    if (Date.now() > deadline) throw new Error(`search: ${found} of ${SEARCH_MATCHES} pages indexed after 60 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return path(20);
}

/**
 * A user of their own with 500 notifications: the notification section fills the bench user's
 * with the same source keys, which may not be written twice.
 */
async function prepareNotifications(api: Api, dataDir: string, databaseUrl: string): Promise<string> {
  const token = await mintDevToken(dataDir, `bench-notified-${Date.now()}@example.com`, 'Notified User');
  const me = await call<{ data: { id: string } }>(api, 'GET', '/api/v1/users/me', undefined, token);
  await fillNotifications(databaseUrl, me.data.id, 500);
  return token;
}

/** Uploads one file to `documentId` through the gateway and answers the path it is read from. */
async function prepareDownload(api: Api, workspaceId: string, documentId: string): Promise<string> {
  const form = uploadForm(workspaceId, documentId, DOWNLOAD_BYTES);
  const res = await fetch(`${api.gatewayUrl}/api/v1/attachments/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': form.contentType },
    body: form.body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`attachment upload: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { url: string } }).data.url;
}

/** A PUT retitling the documents of `ids` in turn (each connection starts at a different one). */
export function retitling(token: string, ids: string[], connections: number) {
  let connection = 0;
  let n = 0;
  const request = (id: string): RequestSpec => ({
    method: 'PUT',
    path: `/api/v1/documents/${id}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ title: `Title ${++n}` }) }),
  });
  const requests = ids.map(request);
  return {
    requests,
    setupClient: (client: { setRequests(requests: RequestSpec[]): void }) => {
      const shift = Math.floor(((connection++ % connections) * requests.length) / connections);
      client.setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
    },
  };
}

export interface EndpointBenchOptions {
  gatewayUrl: string;
  helloUrl: string;
  token: string;
  dataDir: string;
  /** The run's seeded 10,000-document workspace (tree row). */
  treeWorkspace: string;
  /** A document of it to read. */
  readDocument: string;
  connections: number[];
  durationS: number;
  cpuMeters: CpuMeter[];
  withComments: boolean;
  log(message: string): void;
  /** Waits for the relay and consumers between write rows. */
  settle(): Promise<void>;
  /** Only these rows (ENDPOINT_KEYS; default all): a quick look at one endpoint's cost. */
  only?: readonly string[];
  /** The notification service's database, where the notification rows' user gets 500. */
  notificationDatabaseUrl: string;
}

/** The short names of the rows, for `npm run bench -- --only=endpoints --endpoints=roots,children`. */
export const ENDPOINT_KEYS = [
  'read',
  'me',
  'workspaces',
  'members',
  'roots',
  'children',
  'ancestors',
  'tree',
  'threads',
  'create',
  'retitle',
  'hot',
  'search',
  'notifications',
  'notification-count',
  'download',
] as const;
type EndpointKey = (typeof ENDPOINT_KEYS)[number];

const ROWS_OF_SERVICE: Record<string, EndpointKey[]> = {
  search: ['search'],
  notification: ['notifications', 'notification-count'],
  attachment: ['download'],
};

/** The services, besides the workspace, document and comment ones, that the rows of `only` read. */
export function servicesOfEndpoints(only?: readonly string[]): string[] {
  return Object.entries(ROWS_OF_SERVICE)
    .filter(([, keys]) => keys.some((key) => !only || only.includes(key)))
    .map(([service]) => service);
}

export async function measureEndpoints(opts: EndpointBenchOptions): Promise<EndpointReport> {
  const unknown = (opts.only ?? []).filter((key) => !(ENDPOINT_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new Error(`unknown endpoint rows ${unknown.join(', ')} (known: ${ENDPOINT_KEYS.join(', ')})`);
  const wants = (key: EndpointKey) => !opts.only || opts.only.includes(key);
  const api = { gatewayUrl: opts.gatewayUrl, token: opts.token };
  opts.log('endpoints: preparing their data through the gateway');
  const f = await prepare(api, opts.dataDir, opts.withComments);
  const searchPath = wants('search') ? await prepareSearch(api, f) : null;
  const notified =
    wants('notifications') || wants('notification-count')
      ? { authorization: `Bearer ${await prepareNotifications(api, opts.dataDir, opts.notificationDatabaseUrl)}` }
      : null;
  const filePath = wants('download') ? await prepareDownload(api, f.rootsWorkspace, f.filesDocument) : null;
  const auth = { authorization: `Bearer ${opts.token}` };
  const g = opts.gatewayUrl;
  const creationWorkspace = (
    await call<{ data: { id: string } }>(api, 'POST', '/api/v1/workspaces', { name: 'Creation rows' })
  ).data.id;
  const parents = await createRoots(g, opts.token, creationWorkspace, 50, 16);
  const bodies = parents.map((id, i) => creationBody(creationWorkspace, `Page ${i + 1}`, id));

  // The tree is asked for as a browser asks (Accept-Encoding: gzip); autocannon does not unzip.
  const browser = { 'accept-encoding': 'gzip, deflate, br' };
  const reads: Array<[EndpointKey, string, string, Record<string, string>?]> = [
    ['read', 'GET /documents/{id}', `/api/v1/documents/${opts.readDocument}`],
    ['me', 'GET /users/me', '/api/v1/users/me'],
    ['workspaces', 'GET /workspaces', '/api/v1/workspaces'],
    ['members', 'GET /workspaces/{id}/members (21)', `/api/v1/workspaces/${f.membersWorkspace}/members`],
    ['roots', 'GET /documents?workspaceId= (200 roots)', `/api/v1/documents?workspaceId=${f.rootsWorkspace}`],
    ['children', 'GET /documents/{id}/children (100)', `/api/v1/documents/${f.parentOf100}/children`],
    ['ancestors', 'GET /documents/{id}/ancestors (depth 8)', `/api/v1/documents/${f.deepest}/ancestors`],
    ['tree', 'GET /documents/tree (10k, gzip)', `/api/v1/documents/tree?workspaceId=${opts.treeWorkspace}`, browser],
  ];
  if (f.threadsDocument)
    reads.push([
      'threads',
      'GET /comments/documents/{id}/threads (20)',
      `/api/v1/comments/documents/${f.threadsDocument}/threads`,
    ]);
  if (searchPath) reads.push(['search', `GET /documents/search (20 of ${SEARCH_MATCHES} matches)`, searchPath]);
  if (notified) {
    reads.push([
      'notifications',
      'GET /notifications (page of 20 of 500)',
      '/api/v1/notifications?page=0&size=20',
      notified,
    ]);
    reads.push([
      'notification-count',
      'GET /notifications/count (250 unread)',
      '/api/v1/notifications/count',
      notified,
    ]);
  }
  if (filePath) reads.push(['download', `GET /attachments/file (${DOWNLOAD_BYTES / 1024} KiB)`, filePath]);

  const hello: LoadResult[] = [];
  const rows: EndpointRow[] = [];
  for (const connections of opts.connections) {
    const run = async (
      endpoint: string,
      url: string,
      more: Parameters<typeof load>[2]['autocannon'] = {},
      headers: Record<string, string> = {},
    ) => {
      opts.log(`endpoints: ${endpoint}, ${connections} connections, ${opts.durationS} s`);
      const result = await load(endpoint, url, {
        connections,
        durationS: opts.durationS,
        headers: more.requests ? undefined : { ...auth, ...headers },
        cpuMeters: opts.cpuMeters,
        autocannon: more,
      });
      return result;
    };
    const baseline = await run('hello-world', `${opts.helloUrl}/`);
    hello.push(baseline);
    const add = (endpoint: string, result: LoadResult) => {
      const share = Math.round((result.requestsPerSec / baseline.requestsPerSec) * 10_000) / 100;
      rows.push({ ...result, endpoint, share });
      opts.log(
        `endpoints: ${endpoint} @${connections}: ${result.requestsPerSec} req/s = ${share} %, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors + result.non2xx}`,
      );
    };
    for (const [key, endpoint, path, headers] of reads)
      if (wants(key)) add(endpoint, await run(endpoint, `${g}${path}`, {}, headers));
    if (wants('create')) {
      add(
        'POST /documents',
        await run('POST /documents', `${g}/api/v1/documents`, spreadCreations(opts.token, bodies, connections)),
      );
      await opts.settle();
    }
    if (wants('retitle')) {
      add(
        'PUT /documents/{id} title (50 documents)',
        await run('PUT title (50)', `${g}/api/v1/documents`, retitling(opts.token, f.retitled, connections)),
      );
      await opts.settle();
    }
    if (wants('hot')) {
      add(
        'PUT /documents/{id} title (one hot document)',
        await run('PUT title (hot)', `${g}/api/v1/documents`, retitling(opts.token, [f.hot], connections)),
      );
      await opts.settle();
    }
  }
  const [low, high] = [Math.min(...opts.connections), Math.max(...opts.connections)];
  const scaling = [...new Set(rows.map((r) => r.endpoint))].map((endpoint) => {
    const at = (c: number) => rows.find((r) => r.endpoint === endpoint && r.connections === c)?.requestsPerSec ?? 0;
    return { endpoint, ratio: at(low) > 0 ? Math.round((at(high) / at(low)) * 100) / 100 : 0 };
  });
  return { connections: opts.connections, hello, rows, scaling };
}

/** The rows as a Markdown table (for the log and docs/PERFORMANCE.md). */
export function endpointTable(report: EndpointReport): string {
  const lines = [
    '| endpoint | connections | req/s | share of hello-world | p50 ms | p99 ms | errors | CPU ms per request |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of report.rows) {
    const cpu = r.cpuMsPerRequest
      ? Object.entries(r.cpuMsPerRequest)
          .filter(([, ms]) => ms >= 0.01)
          .map(([part, ms]) => `${part} ${ms}`)
          .join(', ')
      : '';
    lines.push(
      `| ${r.endpoint} | ${r.connections} | ${r.requestsPerSec} | ${r.share} % | ${r.latencyP50Ms} | ${r.latencyP99Ms} | ${r.errors + r.non2xx} | ${cpu} |`,
    );
  }
  lines.push('', '| endpoint | req/s at the most connections over req/s at the fewest |', '|---|---|');
  for (const s of report.scaling) lines.push(`| ${s.endpoint} | ${s.ratio} |`);
  return lines.join('\n');
}
