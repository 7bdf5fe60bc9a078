import { sql, z } from '@wiki/db';
import { ISO_RE, type SignedInUser } from '@wiki/testing';
import { type Harness, startHarness } from './helpers.js';

/**
 * A key's last use is not a database write per request: the gateway's lookups stamp
 * `last_used_at` at most once a minute per key.
 */
describe('mcp key last use', () => {
  let t: Harness;
  let ada: SignedInUser;

  beforeAll(async () => {
    t = await startHarness('service');
    ada = await t.signIn('ada-mcp-use@example.com', 'Ada');
  });
  afterAll(() => t?.stop());

  /** The key's row as stored, with its row version: `xmin` changes with every write of the row. */
  const row = (id: string) =>
    t.pool.one(
      sql.type(z.object({ version: z.string(), lastUsedAt: z.string().nullable() }))`
        SELECT xmin::text AS version, last_used_at::text AS "lastUsedAt" FROM mcp_keys WHERE id = ${id}`,
    );

  it('100 lookups of one key write its last use once', async () => {
    const created = await t.call('POST', '/api/v1/users/me/mcp-keys', { as: ada, body: { name: 'busy agent' } });
    expect(created.status).toBe(201);
    const { id, key } = created.body.data;
    const unused = await row(id);
    expect(unused.lastUsedAt).toBeNull();

    const first = await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key } });
    expect(first.status).toBe(200);
    expect(first.body.data.userId).toBe(ada.id);
    const stamped = await row(id);
    expect(stamped.lastUsedAt).not.toBeNull();
    expect(stamped.version).not.toBe(unused.version);

    for (let i = 1; i < 100; i++) {
      const res = await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key } });
      expect(res.status).toBe(200);
      expect(res.body.data.userId).toBe(ada.id);
    }
    // 99 more lookups, and the row is the very version the first one wrote.
    expect(await row(id)).toEqual(stamped);
    const list = await t.call('GET', '/api/v1/users/me/mcp-keys', { as: ada });
    expect(list.body.data.find((k: { id: string }) => k.id === id).lastUsedAt).toMatch(ISO_RE);
  });

  it('stamps a key again once its last use is older than a minute', async () => {
    const created = await t.call('POST', '/api/v1/users/me/mcp-keys', { as: ada, body: { name: 'idle agent' } });
    const { id, key } = created.body.data;
    await t.pool.query(sql.unsafe`UPDATE mcp_keys SET last_used_at = now() - interval '2 minutes' WHERE id = ${id}`);
    const old = await row(id);
    expect((await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key } })).status).toBe(200);
    const renewed = await row(id);
    expect(renewed.version).not.toBe(old.version);
    expect(renewed.lastUsedAt! > old.lastUsedAt!).toBe(true);
  });

  it('still answers 404 for an unknown key', async () => {
    expect((await t.direct('POST', '/internal/mcp-keys/resolve', { body: { key: 'wiki_mcp_unknown' } })).status).toBe(
      404,
    );
  });
});
