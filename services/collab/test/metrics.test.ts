import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollabStack } from './helpers.js';

let stack: Stack;
let owner: SignedInUser;
let workspaceId: string;
const editors: CollabEditor[] = [];

beforeAll(async () => {
  stack = await startCollabStack();
  owner = await signInNew(stack, 'Olga Metrics');
  workspaceId = (await workspaceWith(stack, owner, [])).id;
});
afterAll(async () => {
  for (const editor of editors) editor.destroy();
  await stack?.stop();
});

/** One sample of the collab server's own `/metrics` (its metrics listener, never the API port). */
async function sample(name: string): Promise<number | undefined> {
  const res = await fetch(`${stack.metricsUrls.collab}/metrics`);
  expect(res.status).toBe(200);
  const match = new RegExp(`^${name}\\{service="collab"\\} (\\S+)$`, 'm').exec(await res.text());
  return match ? Number(match[1]) : undefined;
}

describe('GET /metrics of the collab server', () => {
  it('shows the rooms and editor connections it holds', async () => {
    expect(await sample('collab_documents_open')).toBe(0);
    expect(await sample('collab_connections_open')).toBe(0);
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Measured', content: [] });
    for (let i = 0; i < 2; i++) {
      const editor = connectEditor(collabUrl(stack), doc.id, owner.token);
      editors.push(editor);
      await synced(editor);
    }
    await eventually(async () => {
      expect(await sample('collab_documents_open')).toBe(1);
      expect(await sample('collab_connections_open')).toBe(2);
    });
    for (const editor of editors.splice(0)) editor.destroy();
    await eventually(async () => expect(await sample('collab_connections_open')).toBe(0));
  });

  it('is not served on the API port (ARCHITECTURE 5.14): 404 there', async () => {
    const res = await fetch(`${stack.serviceUrls.collab}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('# TYPE');
  });
});
