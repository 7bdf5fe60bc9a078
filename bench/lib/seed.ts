import autocannon, { type RequestSpec } from 'autocannon';

/**
 * Creates documents through the gateway's public API with autocannon. autocannon rather than
 * fetch, and prebuilt requests rather than one built per call: on the same two cores as the system
 * under test, fetch spent ~2 ms of CPU per request and a request built per call ~0.17 ms, against
 * ~0.06 ms prebuilt; the client should not be what is measured.
 */

export interface SeedResult {
  documents: number;
  seconds: number;
  documentsPerSec: number;
  rootIds: string[];
}

const paragraph = (text: string) => ({
  type: 'paragraph',
  props: {},
  content: [{ type: 'text', text, styles: {} }],
  children: [],
});

/** The body of a creation: a title and one paragraph, under `parentId`. */
export const creationBody = (workspaceId: string, title: string, parentId: string | null) => ({
  workspaceId,
  parentId,
  title,
  content: [paragraph(`${title}: a short paragraph of text for the benchmark.`)],
});

const createRequest = (token: string, body: object): RequestSpec => ({
  method: 'POST',
  path: '/api/v1/documents',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * Prebuilt creations cycling through `bodies` (one per parent), every connection starting at a
 * different parent, so that concurrent creations spread over the parents as real users' would.
 */
export function spreadCreations(token: string, bodies: object[], connections: number) {
  const requests = bodies.map((body) => createRequest(token, body));
  let connection = 0;
  return {
    requests,
    setupClient: (client: { setRequests(requests: RequestSpec[]): void }) => {
      const shift = Math.floor(((connection++ % connections) * requests.length) / connections);
      client.setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
    },
  };
}

/** Creates `count` root documents, `concurrency` at a time, and answers their ids. */
export async function createRoots(
  gatewayUrl: string,
  token: string,
  workspaceId: string,
  count: number,
  concurrency: number,
): Promise<string[]> {
  let next = 0;
  const ids: string[] = [];
  const failures: string[] = [];
  const result = await autocannon({
    url: gatewayUrl,
    connections: Math.min(concurrency, count),
    amount: count,
    requests: [
      {
        ...createRequest(token, {}),
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(creationBody(workspaceId, `Root ${++next}`, null)),
        }),
        onResponse: (status, body) => {
          if (status !== 201) failures.push(`${status}: ${body}`);
          else ids.push((JSON.parse(body) as { data: { id: string } }).data.id);
        },
      },
    ],
  });
  if (failures.length > 0 || result.errors + result.timeouts > 0 || ids.length !== count) {
    throw new Error(
      `creating root documents: ${ids.length} of ${count} created, ${result.errors} errors, ${result.timeouts} timeouts; first failure: ${failures[0] ?? 'none'}`,
    );
  }
  return ids;
}

/** `roots` root documents, then `perRoot` children per root on average: roots × (1 + perRoot) documents. */
export async function seedDocuments(
  gatewayUrl: string,
  token: string,
  workspaceId: string,
  roots: number,
  perRoot: number,
  concurrency: number,
): Promise<SeedResult> {
  const started = performance.now();
  const rootIds = await createRoots(gatewayUrl, token, workspaceId, roots, concurrency);
  const children = roots * perRoot;
  if (children > 0) {
    const connections = Math.min(concurrency, children);
    const bodies = rootIds.map((id, r) => creationBody(workspaceId, `Page ${r + 1}`, id));
    const result = await autocannon({
      url: gatewayUrl,
      connections,
      amount: children,
      ...spreadCreations(token, bodies, connections),
    });
    if (result.errors + result.timeouts + result.non2xx > 0 || result['2xx'] !== children) {
      throw new Error(
        `creating documents: ${result['2xx']} of ${children} answered 2xx, ${result.non2xx} other statuses, ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const documents = roots * (1 + perRoot);
  return {
    documents,
    seconds: Math.round(seconds * 100) / 100,
    documentsPerSec: Math.round(documents / seconds),
    rootIds,
  };
}
