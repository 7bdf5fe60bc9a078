import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { addMember, ISO_RE, type SignedInUser, type Stack, signInNew, UUID_RE, workspaceWith } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOKS_PER_WORKSPACE } from '../src/commands/webhooks.js';
import { startNotificationStack } from './helpers.js';

// No WEBHOOK_ALLOWED_HOSTS here: loopback is refused like every private target. A public address
// written as an IP needs no DNS; filters name an event this file never makes, so nothing is sent.
const PUBLIC = 'https://93.184.215.14/hooks/wiki';
const QUIET = ['attachment.text_extracted'];

let stack: Stack;
let pool: DatabasePool;
let owner: SignedInUser;
let admin: SignedInUser;
let editor: SignedInUser;
let viewer: SignedInUser;
let outsider: SignedInUser;
let workspace: { id: string };
let otherWorkspace: { id: string };

beforeAll(async () => {
  stack = await startNotificationStack();
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  [owner, admin, editor, viewer, outsider] = await Promise.all(
    ['Olga Owner', 'Adam Admin', 'Eve Editor', 'Vic Viewer', 'Otto Outsider'].map((n) => signInNew(stack, n)),
  );
  workspace = await workspaceWith(stack, owner, [
    [admin, 'ADMIN'],
    [editor, 'EDITOR'],
    [viewer, 'VIEWER'],
  ]);
  // Otto administers a workspace of his own, not this one.
  otherWorkspace = await workspaceWith(stack, outsider, []);
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

const create = (as: SignedInUser, body: unknown, workspaceId = workspace.id) =>
  stack.request('POST', `/api/v1/workspaces/${workspaceId}/webhooks`, { token: as.token, body });

describe('webhooks API: create, read, change, delete', () => {
  it('creates with 201 and a secret that no later answer shows', async () => {
    const res = await create(admin, { url: PUBLIC, events: ['document.*', 'comment.added'] });
    expect(res.status).toBe(201);
    const hook = res.body.data;
    expect(hook).toMatchObject({ url: PUBLIC, events: ['document.*', 'comment.added'], enabled: true });
    expect(hook.id).toMatch(UUID_RE);
    expect(hook.createdAt).toMatch(ISO_RE);
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);

    const one = await stack.request('GET', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({
      id: hook.id,
      url: PUBLIC,
      events: hook.events,
      enabled: true,
      createdAt: hook.createdAt,
    });
    const list = await stack.request('GET', `/api/v1/workspaces/${workspace.id}/webhooks`, { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((h: { id: string }) => h.id)).toContain(hook.id);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret);

    const changed = await stack.request('PUT', `/api/v1/webhooks/${hook.id}`, {
      token: admin.token,
      body: { events: ['*'], enabled: false },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: hook.id, url: PUBLIC, events: ['*'], enabled: false });
    expect(changed.body.data.secret).toBeUndefined();

    const gone = await stack.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
    expect(gone.status).toBe(204);
    expect((await stack.request('GET', `/api/v1/webhooks/${hook.id}`, { token: owner.token })).status).toBe(404);
    expect((await stack.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses EDITOR and VIEWER with 403 and a non-member (another workspace’s admin) with 404', async () => {
    const hook = (await create(owner, { url: PUBLIC, events: QUIET })).body.data;
    for (const user of [editor, viewer]) {
      expect((await create(user, { url: PUBLIC, events: QUIET })).status, user.name).toBe(403);
      for (const [method, path] of [
        ['GET', `/api/v1/workspaces/${workspace.id}/webhooks`],
        ['GET', `/api/v1/webhooks/${hook.id}`],
        ['PUT', `/api/v1/webhooks/${hook.id}`],
        ['DELETE', `/api/v1/webhooks/${hook.id}`],
        ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ]) {
        const res = await stack.request(method, path, {
          token: user.token,
          body: method === 'PUT' ? { enabled: false } : undefined,
        });
        expect(res.status, `${user.name} ${method} ${path}`).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
    expect((await create(outsider, { url: PUBLIC, events: QUIET })).status).toBe(404);
    for (const [method, path] of [
      ['GET', `/api/v1/workspaces/${workspace.id}/webhooks`],
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook.id}/deliveries/${hook.id}/redeliver`],
    ]) {
      const res = await stack.request(method, path, { token: outsider.token });
      expect(res.status, `outsider ${method} ${path}`).toBe(404);
    }
    // Still there, unchanged.
    const still = await stack.request('GET', `/api/v1/webhooks/${hook.id}`, { token: admin.token });
    expect(still.body.data).toMatchObject({ enabled: true, events: QUIET });
    // Otto's own workspace is his to add webhooks to.
    expect((await create(outsider, { url: PUBLIC, events: QUIET }, otherWorkspace.id)).status).toBe(201);
    expect((await stack.request('GET', `/api/v1/webhooks/${hook.id}`)).status).toBe(401);
  });

  it.each([
    ['http://127.0.0.1:9000/hook', 'loopback'],
    ['http://10.1.2.3/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['http://[::1]:8080/hook', 'loopback'],
    ['http://localhost:8080/hook', 'loopback'],
    ['http://100.64.0.1/hook', 'carrierGradeNat'],
    ['http://[fd00:ec2::254]/hook', 'uniqueLocal'],
  ])('refuses %s (%s) with 400 at creation and at update', async (url, range) => {
    const res = await create(admin, { url, events: QUIET });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'url' }] });
    expect(res.body.error.message).toContain(range);
    const hook = (await create(admin, { url: PUBLIC, events: QUIET })).body.data;
    const put = await stack.request('PUT', `/api/v1/webhooks/${hook.id}`, { token: admin.token, body: { url } });
    expect(put.status).toBe(400);
    const after = await stack.request('GET', `/api/v1/webhooks/${hook.id}`, { token: admin.token });
    expect(after.body.data.url).toBe(PUBLIC);
    await stack.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: admin.token });
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const before = await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM webhooks`);
    for (const body of [
      { url: 'ftp://93.184.215.14/x', events: QUIET },
      { url: 'https://user:pw@93.184.215.14/x', events: QUIET },
      { url: `https://93.184.215.14/${'a'.repeat(2100)}`, events: QUIET },
      { url: 'not a url', events: QUIET },
      { url: PUBLIC, events: [] },
      { url: PUBLIC, events: ['document.nope'] },
      { url: PUBLIC, events: ['user.upserted'] },
      { url: PUBLIC, events: ['nothing.*'] },
      { url: PUBLIC },
      { events: QUIET },
    ]) {
      const res = await create(admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    // Fields the schema does not know are dropped (as everywhere): a caller cannot choose the secret.
    const hook = (await create(admin, { url: PUBLIC, events: QUIET, secret: 'mine' })).body.data;
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await stack.request('PUT', `/api/v1/webhooks/${hook.id}`, { token: admin.token, body: {} })).status).toBe(
      400,
    );
    expect((await stack.request('GET', '/api/v1/webhooks/not-a-uuid', { token: admin.token })).status).toBe(400);
    expect(
      (await stack.request('GET', `/api/v1/webhooks/${hook.id}/deliveries?size=101`, { token: admin.token })).status,
    ).toBe(400);
    expect(await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM webhooks`)).toBe(Number(before) + 1);
    await stack.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: admin.token });
  });

  it(`holds at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks per workspace (409 WEBHOOK_LIMIT_REACHED)`, async () => {
    const own = await workspaceWith(stack, admin, []);
    await addMember(stack, own.id, admin, editor, 'ADMIN');
    const made = await Promise.all(
      Array.from({ length: MAX_WEBHOOKS_PER_WORKSPACE + 3 }, () =>
        create(editor, { url: PUBLIC, events: QUIET }, own.id),
      ),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(MAX_WEBHOOKS_PER_WORKSPACE);
    const refused = made.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'CONFLICT', reason: 'WEBHOOK_LIMIT_REACHED' });
  });
});
