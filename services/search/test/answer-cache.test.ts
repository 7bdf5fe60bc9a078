import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAnswerCache } from '../src/engines/answer-cache.js';
import type { IndexedDocument, SearchEngine } from '../src/engines/engine.js';
import { createPostgresEngine } from '../src/engines/postgres.js';
import { type CountedDatabase, countedSearchDatabase } from './counted-database.js';

/**
 * Repeated searches come from memory until the index changes, on any replica: two cached engines
 * over one database stand for two replicas of the search service. Real Postgres.
 */
let version = Date.now();
const doc = (workspaceId: string, title: string, plainText: string): IndexedDocument => ({
  id: randomUUID(),
  workspaceId,
  parentId: null,
  title,
  icon: null,
  plainText,
  archived: false,
  createdBy: null,
  updatedAt: Date.parse('2026-01-01T00:00:00Z'),
  version: ++version,
});

/** A replica's engine with its own answer cache, over the one counted database replicas share. */
async function cachedReplica(db: CountedDatabase): Promise<SearchEngine> {
  return withAnswerCache(await createPostgresEngine({ pool: db.pool, reads: db.reads, tsConfig: 'simple' }), db.reads);
}

describe('remembered search answers', () => {
  let db: CountedDatabase;
  let replicaA: SearchEngine;
  let replicaB: SearchEngine;

  beforeAll(async () => {
    db = await countedSearchDatabase();
    [replicaA, replicaB] = [await cachedReplica(db), await cachedReplica(db)];
  });
  afterAll(() => db?.drop());

  it('answers a repeated search with one small statement, and a changed index at once', async () => {
    const workspaceId = randomUUID();
    const first = doc(workspaceId, 'Release notes', 'Every change of the release.');
    await replicaA.upsert([first]);
    const query = { workspaceId, query: 'release', limit: 20 };

    const answer = (await replicaA.search(query)).hits;
    expect(answer.map((h) => h.id)).toEqual([first.id]);
    db.reset();
    expect((await replicaA.search(query)).hits).toEqual(answer);
    expect(db.statements()).toBe(1); // the index version, no search statement

    // Another replica writes: this one's next answer holds it.
    const second = doc(workspaceId, 'Planning', 'The release train leaves on Monday.');
    await replicaB.upsert([second]);
    expect((await replicaA.search(query)).hits.map((h) => h.id).sort()).toEqual([first.id, second.id].sort());

    await replicaB.patch([{ id: first.id, archived: true, version: ++version }]);
    expect((await replicaA.search(query)).hits.map((h) => h.id)).toEqual([second.id]);
    await replicaB.remove([second.id]);
    expect((await replicaA.search(query)).hits).toEqual([]);
  });

  it('keeps answers per workspace, query and limit, and an empty write changes nothing', async () => {
    const [one, two] = [randomUUID(), randomUUID()];
    await replicaA.upsert([doc(one, 'Budget', 'Costs of the year.'), doc(two, 'Budget', 'Costs of the team.')]);
    const inOne = (await replicaA.search({ workspaceId: one, query: 'costs', limit: 20 })).hits;
    const inTwo = (await replicaA.search({ workspaceId: two, query: 'costs', limit: 20 })).hits;
    expect(inOne).toHaveLength(1);
    expect(inTwo).toHaveLength(1);
    expect(inOne[0].id).not.toBe(inTwo[0].id);

    await replicaB.upsert([]);
    await replicaB.patch([]);
    db.reset();
    await replicaA.search({ workspaceId: one, query: 'costs', limit: 20 });
    expect(db.statements()).toBe(1);
  });

  // Per workspace: each test below writes workspaces of its own.

  it('keeps the answers of a workspace when another one is written (upsert, patch, removal, purge)', async () => {
    const [quiet, busy] = [randomUUID(), randomUUID()];
    const kept = doc(quiet, 'Roadmap', 'Milestones of the quarter.');
    const moving = doc(busy, 'Roadmap draft', 'Milestones to agree on.');
    await replicaA.upsert([kept, moving]);
    const query = { workspaceId: quiet, query: 'milestones', limit: 20 };
    const answer = (await replicaA.search(query)).hits;
    expect(answer.map((h) => h.id)).toEqual([kept.id]);

    const writes: Array<() => Promise<unknown>> = [
      () => replicaB.upsert([doc(busy, 'Milestones', 'More of them.')]),
      () => replicaB.patch([{ id: moving.id, archived: true, version: ++version }]),
      () => replicaB.remove([moving.id]),
      () => replicaB.removeWorkspace(busy),
    ];
    for (const write of writes) {
      await write();
      db.reset();
      expect((await replicaA.search(query)).hits).toEqual(answer);
      expect(db.statements()).toBe(1); // the workspace's version only
    }
  });

  it('answers afresh in the workspace a patch or a removal named by id only touched', async () => {
    const workspaceId = randomUUID();
    const [one, two] = [
      doc(workspaceId, 'Handbook', 'Onboarding steps.'),
      doc(workspaceId, 'Guide', 'Onboarding tips.'),
    ];
    await replicaA.upsert([one, two]);
    const query = { workspaceId, query: 'onboarding', limit: 20 };
    expect((await replicaA.search(query)).hits.map((h) => h.id).sort()).toEqual([one.id, two.id].sort());
    await replicaB.patch([{ id: one.id, archived: true, version: ++version }]);
    expect((await replicaA.search(query)).hits.map((h) => h.id)).toEqual([two.id]);
    await replicaB.remove([two.id]);
    expect((await replicaA.search(query)).hits).toEqual([]);
    // Ids the index does not hold touch no workspace.
    expect(await replicaB.workspacesOf([randomUUID(), two.id])).toEqual([]);
  });
});
