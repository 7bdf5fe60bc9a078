/** Creates documents through the gateway's public API, `concurrency` requests at a time. */

export interface SeedResult {
  documents: number;
  seconds: number;
  documentsPerSec: number;
  rootIds: string[];
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

const paragraph = (text: string) => ({ type: 'paragraph', props: {}, content: [{ type: 'text', text, styles: {} }], children: [] });

/** `roots` root documents, each with `perRoot` children: roots × (1 + perRoot) documents. */
export async function seedDocuments(gatewayUrl: string, token: string, workspaceId: string, roots: number, perRoot: number, concurrency: number): Promise<SeedResult> {
  const create = async (title: string, parentId: string | null): Promise<string> => {
    const res = await fetch(`${gatewayUrl}/api/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, parentId, title, content: [paragraph(`${title}: a short paragraph of text for the benchmark.`)] }),
    });
    if (res.status !== 201) throw new Error(`creating a document answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };

  const started = performance.now();
  const rootIds: string[] = new Array(roots);
  await pool([...Array(roots).keys()], concurrency, async (i) => {
    rootIds[i] = await create(`Root ${i + 1}`, null);
  });
  const children: Array<[number, number]> = [];
  for (let r = 0; r < roots; r++) for (let c = 0; c < perRoot; c++) children.push([r, c]);
  await pool(children, concurrency, async ([r, c]) => {
    await create(`Page ${r + 1}.${c + 1}`, rootIds[r]);
  });
  const seconds = (performance.now() - started) / 1000;
  const documents = roots * (1 + perRoot);
  return { documents, seconds: Math.round(seconds * 100) / 100, documentsPerSec: Math.round(documents / seconds), rootIds };
}
