import type { CommonQueryMethods } from '@wiki/db';
import { rememberedWorkspaceOf } from './workspace-of.js';

/** A database that knows `workspaces` (document id -> workspace id) and counts its queries. */
function fakeDb(workspaces: Record<string, string>) {
  const db = {
    queries: 0,
    async maybeOneFirst(query: { values: readonly unknown[] }) {
      db.queries++;
      return workspaces[String(query.values[0])] ?? null;
    },
  };
  return db;
}

describe('rememberedWorkspaceOf', () => {
  it('asks once per known document, every time for an unknown one, and forgets the least recently used', async () => {
    const db = fakeDb({ d1: 'w1', d2: 'w2', d3: 'w3' });
    const workspaceOf = rememberedWorkspaceOf(db as unknown as CommonQueryMethods, 2);
    expect(await Promise.all([workspaceOf('d1'), workspaceOf('d1')])).toEqual(['w1', 'w1']);
    expect(await workspaceOf('d1')).toBe('w1');
    expect(db.queries).toBe(1);

    expect(await workspaceOf('unknown')).toBeNull();
    expect(await workspaceOf('unknown')).toBeNull();
    expect(db.queries).toBe(3);

    await workspaceOf('d2');
    await workspaceOf('d1'); // d1 used last: d2 is the one to go
    await workspaceOf('d3');
    const before = db.queries;
    await workspaceOf('d1');
    expect(db.queries).toBe(before);
    await workspaceOf('d2');
    expect(db.queries).toBe(before + 1);
  });
});
