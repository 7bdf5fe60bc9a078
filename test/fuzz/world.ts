import {
  addMember,
  createDocument,
  eventually,
  expectStatus,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import type { IdPool } from './arbitraries.js';

/**
 * The real resources the fuzzer's requests name: a workspace owned by Alice in which the fuzzing
 * user Bob is ADMIN (he reaches nearly every handler but cannot delete the workspace or take it
 * over), documents, a thread with a comment, a pending invitation, an MCP key. What Bob's requests
 * break (an archive, a deletion, leaving) is put back by `heal`, so later requests still reach the
 * handlers instead of only 404s.
 */
export interface World {
  alice: SignedInUser;
  bob: SignedInUser;
  /** Bob's MCP key for routes that take one; its id is in no pool, so no request deletes it. */
  mcpKey: string;
  workspaceId: string;
  ids: IdPool;
  heal(): Promise<void>;
}

export async function buildWorld(stack: Stack): Promise<World> {
  const [alice, bob, carol] = await Promise.all([
    signInNew(stack, 'Alice Owner'),
    signInNew(stack, 'Bob Fuzzer'),
    signInNew(stack, 'Carol Viewer'),
  ]);
  const workspaceId = (
    await workspaceWith(stack, alice, [
      [bob, 'ADMIN'],
      [carol, 'VIEWER'],
    ])
  ).id;
  const as = (user: SignedInUser) => ({ token: user.token });
  const ids: IdPool = {
    workspace: [workspaceId],
    user: [alice.id, bob.id, carol.id],
    email: [alice.email, bob.email, carol.email, 'dave@example.com'],
  };

  const invited = expectStatus(
    await stack.request('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, {
      ...as(alice),
      body: { email: 'dave@example.com', role: 'EDITOR' },
    }),
    201,
    'invite dave',
  ).body.data;
  const pending = expectStatus(
    await stack.request('GET', `/api/v1/workspaces/${workspaceId}/invitations`, as(alice)),
    200,
    'invitations',
  ).body.data as Array<{ id: string }>;
  ids.invitation = pending.map((i) => i.id);
  ids.token = [String(invited.inviteLink).split('/invite/')[1] as string];
  const key = expectStatus(
    await stack.request('POST', '/api/v1/users/me/mcp-keys', { ...as(bob), body: { name: 'fuzz' } }),
    201,
    'mcp key',
  ).body.data;
  ids.mcpKey = [key.id];
  const mcpKey = expectStatus(
    await stack.request('POST', '/api/v1/users/me/mcp-keys', { ...as(bob), body: { name: 'fuzz credential' } }),
    201,
    'mcp credential',
  ).body.data.key as string;

  const members = async () =>
    expectStatus(await stack.request('GET', `/api/v1/workspaces/${workspaceId}/members`, as(alice)), 200, 'members')
      .body.data as Array<{ id: string; userId: string; role: string }>;

  const seedDocuments = async () => {
    const root = await createDocument(stack, alice, { workspaceId, title: 'Root', content: [paragraph('Hello')] });
    const child = await createDocument(stack, alice, { workspaceId, title: 'Child', parentId: root.id });
    await stack.request('POST', `/api/v1/documents/${root.id}/publish`, as(alice));
    ids.document = [root.id, child.id];
  };

  const seedThread = async (documentId: string) => {
    // Retried: after Bob's role was put back, the comment service may still hold the lower one.
    const thread = (
      await eventually(async () =>
        expectStatus(
          await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
            ...as(bob),
            body: {
              anchor: { blockId: 'b1', startOffset: 0, endOffset: 5, selectedText: 'Hello' },
              comment: { content: 'First' },
            },
          }),
          201,
          'thread',
        ),
      )
    ).body.data;
    ids.thread = [thread.id];
    ids.comment = thread.comments.map((c: { id: string }) => c.id);
  };

  const heal = async () => {
    let changed = false;
    const workspace = (await stack.request('GET', `/api/v1/workspaces/${workspaceId}`, as(alice))).body.data;
    if (workspace?.isArchived) {
      await stack.request('PUT', `/api/v1/workspaces/${workspaceId}`, { ...as(alice), body: { isArchived: false } });
      changed = true;
    }

    let list = await members();
    const bobMember = list.find((m) => m.userId === bob.id);
    if (!bobMember) await addMember(stack, workspaceId, alice, bob, 'ADMIN');
    else if (bobMember.role !== 'ADMIN') {
      await stack.request('PUT', `/api/v1/workspaces/${workspaceId}/members/${bobMember.id}/role`, {
        ...as(alice),
        body: { role: 'ADMIN' },
      });
    }
    changed ||= bobMember?.role !== 'ADMIN';
    list = await members();
    ids.member = list.map((m) => m.id);
    // The other services learn of it through events: wait until they let Bob in again.
    if (changed) {
      await eventually(async () =>
        expectStatus(
          await stack.request('GET', `/api/v1/documents?workspaceId=${workspaceId}`, as(bob)),
          200,
          'back in',
        ),
      );
    }

    const root = ids.document?.[0];
    const rootNow = root ? await stack.request('GET', `/api/v1/documents/${root}`, as(alice)) : undefined;
    if (rootNow?.status !== 200) await seedDocuments();
    else if (rootNow.body.data.isArchived) {
      await stack.request('PUT', `/api/v1/documents/${root}`, { ...as(alice), body: { isArchived: false } });
    }
    const documentId = ids.document?.[0] as string;
    const threads = await eventually(async () =>
      expectStatus(
        await stack.request('GET', `/api/v1/comments/documents/${documentId}/threads`, as(bob)),
        200,
        'threads',
      ),
    );
    if (threads.body.data.length === 0) await seedThread(documentId);
  };

  await heal();
  return { alice, bob, mcpKey, workspaceId, ids, heal };
}
