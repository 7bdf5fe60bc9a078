import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import { sql, z } from '@wiki/db';
import { resolveEmailPreferences } from '@wiki/events';
import { createWorkspace, ISO_RE, type SignedInUser, signInNew, UUID_RE } from '@wiki/testing';
import { type Harness, MODES, type Mode, startHarness } from './helpers.js';

describe.each(MODES)('users (%s)', (mode: Mode) => {
  let t: Harness;
  let ada: SignedInUser;

  beforeAll(async () => {
    t = await startHarness(mode);
    ada = await t.signIn('ada@example.com', 'Ada Lovelace');
  });
  afterAll(() => t?.stop());

  /** The x-wiki-identity token the gateway would forward for this user. */
  const identityOf = (u: SignedInUser) =>
    mintIdentityToken(t.config.internalTokenSecret, { kind: 'user', userId: u.id, email: u.email, name: u.name });

  describe('users/me', () => {
    it('returns the UserResponse with default preferences', async () => {
      const res = await t.call('GET', '/api/v1/users/me', { as: ada });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([
        'avatarUrl',
        'createdAt',
        'email',
        'id',
        'lastLoginAt',
        'name',
        'preference',
        'status',
      ]);
      expect(res.body.data).toMatchObject({
        id: ada.id,
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        avatarUrl: null,
        status: 'active',
        preference: {
          lastDocumentId: null,
          lastWorkspaceId: null,
          theme: 'system',
          sidebarCollapsed: false,
          locale: 'en',
          notificationsEnabled: true,
          emailNotifications: resolveEmailPreferences({}),
        },
      });
      expect(res.body.data.lastLoginAt).toMatch(ISO_RE);
      expect((await t.call('GET', '/api/v1/users/me')).status).toBe(401);
    });

    it('saves preferences field by field', async () => {
      const pia = await signInNew(t, 'Pia Preferring'); // her own: ada keeps the defaults
      const ws = '3f2c1a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6';
      const first = await t.call('PUT', '/api/v1/users/me/preferences', {
        as: pia,
        body: { theme: 'dark', lastWorkspaceId: ws },
      });
      expect(first.status).toBe(200);
      expect(first.body.data.preference).toMatchObject({ theme: 'dark', lastWorkspaceId: ws, locale: 'en' });
      const second = await t.call('PUT', '/api/v1/users/me/preferences', {
        as: pia,
        body: { locale: 'pt-BR', sidebarCollapsed: true, notificationsEnabled: false, id: 'ignored', email: 'x@y.z' },
      });
      expect(second.body.data.preference).toEqual({
        lastDocumentId: null,
        lastWorkspaceId: ws,
        theme: 'dark',
        sidebarCollapsed: true,
        locale: 'pt-BR',
        notificationsEnabled: false,
        emailNotifications: resolveEmailPreferences({}),
      });
      expect(second.body.data.email).toBe(pia.email);
      const cleared = await t.call('PUT', '/api/v1/users/me/preferences', { as: pia, body: { lastWorkspaceId: null } });
      expect(cleared.body.data.preference.lastWorkspaceId).toBeNull();
      // One query reads the user with what they saved: the same as the save answered.
      expect((await t.call('GET', '/api/v1/users/me', { as: pia })).body.data).toEqual(cleared.body.data);
    });

    it.each([
      ['unknown theme', { theme: 'blue' }],
      ['locale over 10', { locale: 'abcdefghijk' }],
      ['lastDocumentId not a UUID', { lastDocumentId: 'doc-1' }],
      ['lastWorkspaceId not a UUID', { lastWorkspaceId: 12 }],
      ['sidebarCollapsed not a boolean', { sidebarCollapsed: 'maybe' }],
      ['notificationsEnabled not a boolean', { notificationsEnabled: {} }],
    ])('refuses %s (400)', async (_what, body) => {
      const res = await t.call('PUT', '/api/v1/users/me/preferences', { as: ada, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('mcp keys', () => {
    it('creates (201, key shown once), lists without the key, resolves and deletes', async () => {
      const created = await t.call('POST', '/api/v1/users/me/mcp-keys', { as: ada, body: { name: 'Claude desktop' } });
      expect(created.status).toBe(201);
      const { id, key, prefix, name, createdAt } = created.body.data;
      expect(Object.keys(created.body.data).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'prefix']);
      expect(id).toMatch(UUID_RE);
      expect(name).toBe('Claude desktop');
      expect(key.startsWith(prefix)).toBe(true);
      expect(key.length).toBeGreaterThan(40);
      expect(createdAt).toMatch(ISO_RE);

      const list = await t.call('GET', '/api/v1/users/me/mcp-keys', { as: ada });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([{ id, name, prefix, lastUsedAt: null, createdAt }]);
      expect(JSON.stringify(list.body)).not.toContain(key);

      // Only the hash is stored.
      const stored = await t.pool.anyFirst(sql.type(z.object({ h: z.string() }))`SELECT key_hash AS h FROM mcp_keys`);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(stored[0]).not.toContain(key);

      const resolved = await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key } });
      expect(resolved.status).toBe(200);
      expect(resolved.body.data).toEqual({
        userId: ada.id,
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        avatarUrl: null,
        idpUid: 'idp|ada@example.com',
      });
      expect((await t.call('GET', '/api/v1/users/me/mcp-keys', { as: ada })).body.data[0].lastUsedAt).toMatch(ISO_RE);
      expect((await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key: `${key}x` } })).status).toBe(404);
      expect(
        (await t.direct('POST', '/internal/mcp-keys/resolve', { identity: await identityOf(ada), body: { key } }))
          .status,
      ).toBe(403);

      const other = await signInNew(t);
      expect((await t.call('DELETE', `/api/v1/users/me/mcp-keys/${id}`, { as: other })).status).toBe(404);
      expect((await t.call('GET', '/api/v1/users/me/mcp-keys', { as: other })).body.data).toEqual([]);
      const del = await t.call('DELETE', `/api/v1/users/me/mcp-keys/${id}`, { as: ada });
      expect(del.status).toBe(204);
      expect(del.body).toBeNull();
      expect((await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key } })).status).toBe(404);
      expect((await t.call('DELETE', `/api/v1/users/me/mcp-keys/${id}`, { as: ada })).status).toBe(404);
      expect((await t.call('DELETE', '/api/v1/users/me/mcp-keys/bad-id', { as: ada })).status).toBe(400);
    });

    it('validates the key name', async () => {
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }]) {
        expect((await t.call('POST', '/api/v1/users/me/mcp-keys', { as: ada, body })).status).toBe(400);
      }
    });
  });

  describe('internal users', () => {
    const resolve = (body: unknown, identity?: string) =>
      t.direct('POST', '/internal/users/resolve', { identity, body });

    it('creates a user once, with a default workspace, and emits user.upserted only on change', async () => {
      const first = await resolve({
        idpUid: 'kc|grace',
        email: 'Grace@Example.com',
        emailVerified: true,
        name: 'Grace Hopper',
        avatarUrl: 'https://img/g.png',
      });
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual({
        id: expect.stringMatching(UUID_RE),
        email: 'Grace@Example.com',
        emailVerified: true,
        name: 'Grace Hopper',
        avatarUrl: 'https://img/g.png',
        idpUid: 'kc|grace',
      });
      const id = first.body.data.id;
      const upserts = () => t.outbox('user.upserted').then((all) => all.filter((e) => e.data.id === id));
      expect(await upserts()).toHaveLength(1);
      expect((await upserts())[0].data).toEqual({
        id,
        idpUid: 'kc|grace',
        email: 'Grace@Example.com',
        name: 'Grace Hopper',
        avatarUrl: 'https://img/g.png',
      });

      const again = await resolve({
        idpUid: 'kc|grace',
        email: 'Grace@Example.com',
        emailVerified: true,
        name: 'Grace Hopper',
      });
      expect(again.body.data.id).toBe(id);
      expect(again.body.data.avatarUrl).toBe('https://img/g.png');
      expect(await upserts()).toHaveLength(1);

      const renamed = await resolve({
        idpUid: 'kc|grace',
        email: 'grace@navy.mil',
        emailVerified: true,
        name: 'Rear Admiral Hopper',
      });
      expect(renamed.body.data).toMatchObject({ id, email: 'grace@navy.mil', name: 'Rear Admiral Hopper' });
      expect((await upserts()).at(-1)!.data).toMatchObject({ email: 'grace@navy.mil', name: 'Rear Admiral Hopper' });

      const identity = await mintIdentityToken(t.config.internalTokenSecret, {
        kind: 'user',
        userId: id,
        email: 'grace@navy.mil',
      });
      const workspaces = (await t.direct('GET', '/api/v1/workspaces', { identity })).body.data;
      expect(workspaces).toHaveLength(1);
      expect(workspaces[0]).toMatchObject({ name: "Grace Hopper's workspace", isDefault: true, ownerId: id });
    });

    it('creates exactly one user when first requests race', async () => {
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => resolve({ idpUid: 'kc|racer', email: 'racer@example.com', name: 'Racer' })),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
      const identity = await mintIdentityToken(t.config.internalTokenSecret, {
        kind: 'user',
        userId: results[0].body.data.id,
      });
      expect((await t.direct('GET', '/api/v1/workspaces', { identity })).body.data).toHaveLength(1);
    });

    it('refuses a second account with an email already linked to another idp uid (409)', async () => {
      const res = await resolve({ idpUid: 'other|ada', email: 'ADA@example.com' });
      expect(res.status).toBe(409);
    });

    it('uses the email local part when the token has no name', async () => {
      const res = await resolve({ idpUid: 'kc|nameless', email: 'nameless@example.com' });
      expect(res.body.data.name).toBe('nameless');
    });

    it('finds users by id or idp uid, 404 otherwise', async () => {
      const byId = await t.direct('GET', `/internal/users/${ada.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body.data).toMatchObject({ id: ada.id, idpUid: 'idp|ada@example.com' });
      const byIdp = await t.direct('GET', `/internal/users/${encodeURIComponent('idp|ada@example.com')}`);
      expect(byIdp.body.data.id).toBe(ada.id);
      expect((await t.direct('GET', '/internal/users/nobody')).status).toBe(404);
      expect((await t.direct('GET', '/internal/users/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });

    it('answers membership lookups for other services', async () => {
      const max = await signInNew(t, 'Max Member'); // his one workspace: the default one
      const ws = (await t.call('GET', '/api/v1/workspaces', { as: max })).body.data[0];
      const res = await t.direct('GET', `/internal/workspaces/${ws.id}/members/${max.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        workspaceId: ws.id,
        userId: max.id,
        memberId: expect.stringMatching(UUID_RE),
        role: 'OWNER',
        workspaceArchived: false,
      });
      const other = await signInNew(t);
      expect((await t.direct('GET', `/internal/workspaces/${ws.id}/members/${other.id}`)).status).toBe(404);
    });

    it('tells membership lookups that a workspace is archived', async () => {
      const ws = await createWorkspace(t, ada);
      expect((await t.call('PUT', `/api/v1/workspaces/${ws.id}`, { as: ada, body: { isArchived: true } })).status).toBe(
        200,
      );
      const res = await t.direct('GET', `/internal/workspaces/${ws.id}/members/${ada.id}`);
      expect(res.body.data).toMatchObject({ role: 'OWNER', workspaceArchived: true });
    });

    it('is closed to user identities (403) and anonymous callers (401)', async () => {
      const asAda = await identityOf(ada);
      expect((await resolve({ idpUid: 'x', email: 'x@example.com' }, asAda)).status).toBe(403);
      expect(
        (
          await t.direct('POST', '/internal/users/resolve', {
            identity: null,
            body: { idpUid: 'x', email: 'x@example.com' },
          })
        ).status,
      ).toBe(401);
      expect((await t.direct('GET', `/internal/users/${ada.id}`, { identity: asAda })).status).toBe(403);
      const forged = await mintServiceToken('a-different-secret-of-enough-length', 'gateway');
      expect((await t.direct('GET', `/internal/users/${ada.id}`, { identity: forged })).status).toBe(401);
      // The gateway never routes /internal: there is no public path to these routes.
      expect((await t.call('GET', `/internal/users/${ada.id}`, { as: ada })).status).toBe(
        mode === 'gateway' ? 404 : 403,
      );
    });
  });
});
