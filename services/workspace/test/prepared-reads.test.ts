import { randomUUID } from 'node:crypto';
import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, countingStatements, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { findMemberByUser, listMembers, MemberView } from '../src/db/members.js';
import { DEFAULT_PREFERENCES, findUserWithPreferences, PreferenceRow, savePreferences } from '../src/db/preferences.js';
import { createPreparedReads, type PreparedReads } from '../src/db/prepared-reads.js';
import { UserRow } from '../src/db/users.js';
import { listWorkspacesOfUser, WorkspaceRow } from '../src/db/workspaces.js';
import { workspaceService } from '../src/service.js';

/**
 * GET /users/me, GET /workspaces and GET /workspaces/{id}/members read through prepared statements whose rows are not parsed:
 * they must be exactly the rows the slonik queries give (the same ISO text for timestamps), the
 * answers byte for byte what the slonik reads answer, and each request one statement. Real Postgres.
 */

/** The prepared reads counted: every call is one statement. */
function countingReads(reads: PreparedReads, counter: { add(): void }): PreparedReads {
  return {
    findMe: (userId) => (counter.add(), reads.findMe(userId)),
    listWorkspacesOfUser: (userId) => (counter.add(), reads.listWorkspacesOfUser(userId)),
    listMembersAs: (workspaceId, callerId) => (counter.add(), reads.listMembersAs(workspaceId, callerId)),
    end: () => reads.end(),
  };
}

/** The same reads through slonik: what the endpoints answered before the prepared statements. */
function slonikReads(pool: DatabasePool): PreparedReads {
  return {
    findMe: (userId) => findUserWithPreferences(pool, userId),
    listWorkspacesOfUser: async (userId) => [...(await listWorkspacesOfUser(pool, userId))],
    listMembersAs: async (workspaceId, callerId) =>
      (await findMemberByUser(pool, workspaceId, callerId)) ? [...(await listMembers(pool, workspaceId))] : null,
    end: async () => undefined,
  };
}

describe('prepared reads', () => {
  let config: Config;
  let pool: DatabasePool;
  let reads: PreparedReads;
  let app: FastifyInstance;
  let slonikApp: FastifyInstance;
  let counted: ReturnType<typeof countingStatements<DatabasePool>>;
  let preparedCalls = 0;
  const statements = () => counted.count() + preparedCalls;
  const resetStatements = () => {
    counted.reset();
    preparedCalls = 0;
  };

  beforeAll(async () => {
    config = isolatedConfig(UNUSED_IDP);
    await prepareDatabase(workspaceService, config);
    pool = await createDatabasePool(config.databaseUrls.workspace);
    reads = createPreparedReads(config.databaseUrls.workspace, console);
    counted = countingStatements(pool);
    app = await buildApp(config, {
      pool: counted.db,
      reads: countingReads(reads, { add: () => preparedCalls++ }),
      logLevel: 'silent',
    });
    slonikApp = await buildApp(config, { pool, reads: slonikReads(pool), logLevel: 'silent' });
    await Promise.all([app.ready(), slonikApp.ready()]);
  });

  afterAll(async () => {
    await app?.close();
    await slonikApp?.close();
    await reads?.end();
    await pool?.end();
    if (config) await cleanupConfig(config);
  });

  /** A user signed in the gateway's way (so with a last sign-in and a default workspace), and their identity token. */
  async function signIn(name: string): Promise<{ id: string; token: string }> {
    const email = `${randomUUID()}@example.com`;
    const res = await app.inject({
      method: 'POST',
      url: '/internal/users/resolve',
      headers: { 'x-wiki-identity': await mintServiceToken(config.internalTokenSecret, 'gateway', 3600) },
      payload: { idpUid: `idp|${email}`, email, emailVerified: true, name },
    });
    expect(res.statusCode).toBe(200);
    const id: string = res.json().data.id;
    const token = await mintIdentityToken(config.internalTokenSecret, { kind: 'user', userId: id, email, name }, 3600);
    return { id, token };
  }

  const get = (target: FastifyInstance, url: string, token: string) =>
    target.inject({ method: 'GET', url, headers: { 'x-wiki-identity': token } });

  it('reads a user and their preferences as the slonik query does: defaults, then saved ones; null for no user', async () => {
    const { id } = await signIn('Prepared Reader');
    const fresh = await reads.findMe(id);
    expect(fresh).toEqual(await findUserWithPreferences(pool, id));
    expect(fresh?.preference).toEqual(DEFAULT_PREFERENCES);
    expect(UserRow.strict().parse(fresh?.user)).toEqual(fresh?.user);
    expect(fresh?.user.lastLoginAt).not.toBeNull();

    // Microseconds just below a whole second: both sides cut them to the same milliseconds.
    await pool.query(sql.unsafe`
      UPDATE users SET last_login_at = '2026-03-04 05:06:07.999999+00', created_at = '2025-12-31 23:59:59.000501+00'
      WHERE id = ${id}`);
    await savePreferences(pool, id, {
      theme: 'dark',
      locale: 'de',
      lastWorkspaceId: randomUUID(),
      emailNotifications: { COMMENT_REPLY: 'off' },
    });
    const saved = await reads.findMe(id);
    expect(saved).toEqual(await findUserWithPreferences(pool, id));
    expect(saved?.user).toMatchObject({
      lastLoginAt: '2026-03-04T05:06:07.999Z',
      createdAt: '2025-12-31T23:59:59.000Z',
    });
    expect(PreferenceRow.strict().parse(saved?.preference)).toEqual(saved?.preference);
    expect(saved?.preference).toMatchObject({
      theme: 'dark',
      locale: 'de',
      notificationsEnabled: true,
      emailNotifications: { COMMENT_REPLY: 'off' },
    });

    await pool.query(sql.unsafe`UPDATE users SET last_login_at = NULL WHERE id = ${id}`);
    expect((await reads.findMe(id))?.user.lastLoginAt).toBeNull();
    expect(await reads.findMe(randomUUID())).toBeNull();
  });

  it('lists the workspaces of a user as the slonik query does, in its order, and only theirs', async () => {
    const { id, token } = await signIn('Lister');
    const other = await signIn('Other');
    for (const name of ['Zeta', 'Alpha']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers: { 'x-wiki-identity': token },
        payload: { name, description: `${name} things`, color: '#AABBCC' },
      });
      expect(res.statusCode).toBe(201);
    }
    await pool.query(sql.unsafe`
      UPDATE workspaces SET document_count = 42, updated_at = '2026-01-01 00:00:00.123999+00'
      WHERE owner_id = ${id} AND name = 'Alpha'`);

    const rows = await reads.listWorkspacesOfUser(id);
    expect(rows).toEqual([...(await listWorkspacesOfUser(pool, id))]);
    expect(rows.map((w) => [w.name, w.isDefault])).toEqual([
      ["Lister's workspace", true],
      ['Zeta', false],
      ['Alpha', false],
    ]);
    for (const row of rows) expect(WorkspaceRow.strict().parse(row)).toEqual(row);
    expect(rows[2]).toMatchObject({ documentCount: 42, updatedAt: '2026-01-01T00:00:00.123Z' });
    expect(await reads.listWorkspacesOfUser(other.id)).toHaveLength(1);
    expect(await reads.listWorkspacesOfUser(randomUUID())).toEqual([]);
  });

  it('answers GET /users/me and GET /workspaces byte for byte as the slonik reads did, in one statement each', async () => {
    const { id, token } = await signIn('Byte Counter');
    await savePreferences(pool, id, { sidebarCollapsed: true, notificationsEnabled: false });
    const second = await app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: { 'x-wiki-identity': token },
      payload: { name: 'Second', icon: '📚' },
    });
    expect(second.statusCode).toBe(201);

    for (const url of ['/api/v1/users/me', '/api/v1/workspaces']) {
      resetStatements();
      const res = await get(app, url, token);
      expect(res.statusCode).toBe(200);
      expect(statements()).toBe(1);
      const before = await get(slonikApp, url, token);
      expect(before.statusCode).toBe(200);
      expect(res.body).toBe(before.body);
    }
    expect(JSON.parse((await get(app, '/api/v1/workspaces', token)).body).data).toHaveLength(2);

    // A valid identity of a user this service does not hold: 404 in the error envelope, still one statement.
    const unknown = await mintIdentityToken(
      config.internalTokenSecret,
      { kind: 'user', userId: randomUUID(), email: 'nobody@example.com', name: 'Nobody' },
      3600,
    );
    resetStatements();
    const missing = await get(app, '/api/v1/users/me', unknown);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(statements()).toBe(1);
  });

  /** A workspace of `owner` with `others` as members, each invited by the owner; its id. */
  async function workspaceOf(owner: { token: string }, others: Array<{ id: string; role: string }>): Promise<string> {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: { 'x-wiki-identity': owner.token },
      payload: { name: 'Members' },
    });
    expect(res.statusCode).toBe(201);
    const workspaceId: string = res.json().data.id;
    for (const other of others)
      await pool.query(sql.unsafe`
        INSERT INTO workspace_members (workspace_id, user_id, role, invited_by, invited_at, accepted_at)
        SELECT ${workspaceId}, ${other.id}, ${other.role}, owner_id, now(), now() FROM workspaces WHERE id = ${workspaceId}`);
    return workspaceId;
  }

  it('lists the members of a workspace as the slonik queries do, in their order; null to a non-member', async () => {
    const owner = await signIn('Mona Owner');
    // Names of one role in an order that only a case-insensitive sort gives.
    const [zed, carl, amy, bob, stranger] = await Promise.all(
      ['zed Viewer', 'Carl Editor', 'Amy Editor', 'bob Editor', 'Stranger'].map((name) => signIn(name)),
    );
    const workspaceId = await workspaceOf(owner, [
      { id: zed.id, role: 'VIEWER' },
      { id: carl.id, role: 'EDITOR' },
      { id: amy.id, role: 'EDITOR' },
      { id: bob.id, role: 'EDITOR' },
    ]);
    // An inviter with an avatar, one whose invitation nobody holds any more, microseconds cut.
    await pool.query(sql.unsafe`UPDATE users SET avatar_url = 'https://example.com/mona.png' WHERE id = ${owner.id}`);
    await pool.query(sql.unsafe`
      UPDATE workspace_members SET invited_by = NULL, invited_at = '2026-02-03 04:05:06.789999+00'
      WHERE workspace_id = ${workspaceId} AND user_id = ${zed.id}`);

    const rows = await reads.listMembersAs(workspaceId, zed.id);
    expect(rows).toEqual([...(await listMembers(pool, workspaceId))]);
    expect(rows?.map((m) => [m.userName, m.role])).toEqual([
      ['Mona Owner', 'OWNER'],
      ['Amy Editor', 'EDITOR'],
      ['bob Editor', 'EDITOR'],
      ['Carl Editor', 'EDITOR'],
      ['zed Viewer', 'VIEWER'],
    ]);
    for (const row of rows ?? []) expect(MemberView.strict().parse(row)).toEqual(row);
    expect(rows?.[1]).toMatchObject({ inviterName: 'Mona Owner', inviterAvatar: 'https://example.com/mona.png' });
    expect(rows?.[4]).toMatchObject({ invitedBy: null, inviterName: null, invitedAt: '2026-02-03T04:05:06.789Z' });
    expect(await reads.listMembersAs(workspaceId, stranger.id)).toBeNull();
    expect(await reads.listMembersAs(randomUUID(), owner.id)).toBeNull();
  });

  it('answers GET /workspaces/{id}/members byte for byte as the slonik reads did, in one statement, 404 to others', async () => {
    const owner = await signIn('Owen Owner');
    const [ann, stranger] = await Promise.all([signIn('Ann Commenter'), signIn('Stan Stranger')]);
    const workspaceId = await workspaceOf(owner, [{ id: ann.id, role: 'COMMENTER' }]);
    const url = `/api/v1/workspaces/${workspaceId}/members`;
    for (const caller of [owner, ann]) {
      resetStatements();
      const res = await get(app, url, caller.token);
      expect(res.statusCode).toBe(200);
      expect(statements()).toBe(1);
      expect(res.body).toBe((await get(slonikApp, url, caller.token)).body);
      expect(JSON.parse(res.body).data).toHaveLength(2);
    }
    for (const [caller, target] of [
      [stranger, url],
      [owner, `/api/v1/workspaces/${randomUUID()}/members`],
    ] as const) {
      resetStatements();
      const res = await get(app, target, caller.token);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      expect(statements()).toBe(1);
      expect(res.body.replace(/"requestId":"[^"]*"/, '')).toBe(
        (await get(slonikApp, target, caller.token)).body.replace(/"requestId":"[^"]*"/, ''),
      );
    }
  });
});
