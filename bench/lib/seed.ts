import autocannon from 'autocannon';

/**
 * Creates documents through the gateway's public API with autocannon, `concurrency` requests at
 * a time. autocannon rather than fetch, and prebuilt requests rather than one built per call: on
 * the same two cores as the system under test, fetch spent ~2 ms of CPU per request and a request
 * built per call ~0.17 ms, against ~0.06 ms prebuilt; the client should not be what is measured.
 */

export interface SeedResult {
  documents: number;
  seconds: number;
  documentsPerSec: number;
  rootIds: string[];
}

const paragraph = (text: string) => ({ type: 'paragraph', props: {}, content: [{ type: 'text', text, styles: {} }], children: [] });

/** Sends `count` creations; `bodyFor(i)` gives the i-th; every answer must be a 201. */
async function createMany(gatewayUrl: string, token: string, count: number, concurrency: number, bodyFor: (i: number) => object, onCreated?: (id: string) => void): Promise<void> {
  let next = 0;
  const failures: string[] = [];
  const result = await autocannon({
    url: gatewayUrl,
    connections: Math.min(concurrency, count),
    amount: count,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/documents',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(bodyFor(next++)) }),
        onResponse: (status, body) => {
          if (status !== 201) failures.push(`${status}: ${body}`);
          else onCreated?.((JSON.parse(body) as { data: { id: string } }).data.id);
        },
      },
    ],
  });
  if (failures.length > 0 || result.errors + result.timeouts > 0 || result['2xx'] !== count) {
    throw new Error(`creating documents: ${result['2xx']} of ${count} answered 2xx, ${result.errors} errors, ${result.timeouts} timeouts; first failure: ${failures[0] ?? 'none'}`);
  }
}

/**
 * `count` creations cycling through `bodies` (one per parent), every connection starting at a
 * different parent so that concurrent creations spread over the parents as real users would.
 */
async function createChildren(gatewayUrl: string, token: string, bodies: object[], count: number, concurrency: number): Promise<void> {
  const requests = bodies.map((b) => ({
    method: 'POST',
    path: '/api/v1/documents',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(b),
  }));
  let connection = 0;
  const result = await autocannon({
    url: gatewayUrl,
    connections: Math.min(concurrency, count),
    amount: count,
    requests,
    setupClient: (client) => {
      const shift = Math.floor((connection++ * requests.length) / concurrency);
      client.setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
    },
  });
  if (result.errors + result.timeouts + result.non2xx > 0 || result['2xx'] !== count) {
    throw new Error(`creating documents: ${result['2xx']} of ${count} answered 2xx, ${result.non2xx} other statuses, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
}

/** `roots` root documents, then `perRoot` children per root on average: roots × (1 + perRoot) documents. */
export async function seedDocuments(gatewayUrl: string, token: string, workspaceId: string, roots: number, perRoot: number, concurrency: number): Promise<SeedResult> {
  const body = (title: string, parentId: string | null) => ({ workspaceId, parentId, title, content: [paragraph(`${title}: a short paragraph of text for the benchmark.`)] });

  const started = performance.now();
  const rootIds: string[] = [];
  await createMany(gatewayUrl, token, roots, concurrency, (i) => body(`Root ${i + 1}`, null), (id) => rootIds.push(id));
  if (perRoot > 0) await createChildren(gatewayUrl, token, rootIds.map((id, r) => body(`Page ${r + 1}`, id)), roots * perRoot, concurrency);
  const seconds = (performance.now() - started) / 1000;
  const documents = roots * (1 + perRoot);
  return { documents, seconds: Math.round(seconds * 100) / 100, documentsPerSec: Math.round(documents / seconds), rootIds };
}
