import { describe, expect, it } from 'vitest';
import { sharedVersionReads } from './version-reads.js';

/** A read that answers when told to, with the value the "database" holds when it started. */
function controlledReads() {
  let value = 0;
  const started: Array<{ workspaceId: string; sawValue: number; finish(): void; fail(): void }> = [];
  const read = (workspaceId: string) =>
    new Promise<number>((resolve, reject) => {
      const sawValue = value;
      started.push({ workspaceId, sawValue, finish: () => resolve(sawValue), fail: () => reject(new Error('down')) });
    });
  return {
    read,
    started,
    write: () => {
      value++;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('shared version reads', () => {
  it('gives a request only a read started after it asked, one running and one waiting per workspace', async () => {
    const db = controlledReads();
    const versionOf = sharedVersionReads(db.read);
    const first = versionOf('w');
    expect(db.started).toHaveLength(1);
    // A write commits, then three requests come while the first read (started before it) runs.
    db.write();
    const later = [versionOf('w'), versionOf('w'), versionOf('w')];
    expect(db.started).toHaveLength(1); // they wait rather than each reading
    const other = versionOf('x'); // another workspace reads at once
    expect(db.started).toHaveLength(2);

    db.started[0]?.finish();
    expect(await first).toBe(0);
    await tick();
    expect(db.started).toHaveLength(3); // the next read, shared by the three
    db.started[2]?.finish();
    expect(await Promise.all(later)).toEqual([1, 1, 1]); // they see the write
    db.started[1]?.finish();
    expect(await other).toBe(1);
  });

  it('passes a failed read on to its requests only; the next request reads again', async () => {
    const db = controlledReads();
    const versionOf = sharedVersionReads(db.read);
    const failing = versionOf('w');
    const waiting = versionOf('w');
    db.started[0]?.fail();
    await expect(failing).rejects.toThrow('down');
    await tick();
    db.started[1]?.finish();
    expect(await waiting).toBe(0);
    const again = versionOf('w');
    expect(db.started).toHaveLength(3);
    db.started[2]?.finish();
    expect(await again).toBe(0);
  });
});
