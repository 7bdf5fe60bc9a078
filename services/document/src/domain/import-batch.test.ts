import { describe, expect, it } from 'vitest';
import { importedSubtrees } from '../commands/rollback-import.js';
import { type ImportedDocumentInput, planImport } from './import-batch.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PLACE = id(99);
const doc = (n: number, parent: number | null = null, position?: number): ImportedDocumentInput => ({
  id: id(n),
  parentId: parent === null ? null : id(parent),
  title: `D${n}`,
  ...(position === undefined ? {} : { position }),
});
const fieldOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as { details?: Array<{ field: string }> }).details?.[0]?.field;
  }
  return undefined;
};

describe('planImport', () => {
  it('orders parents before children and siblings by position, then by the order of the call', () => {
    const plan = planImport(PLACE, [doc(3, 1), doc(1, null, 5), doc(2, null, 1), doc(4, 1), doc(5, 3, 0), doc(6, 1)]);
    expect(plan.documents.map((d) => d.title)).toEqual(['D2', 'D1', 'D3', 'D4', 'D6', 'D5']);
    // No parent named: the import's place.
    expect(plan.documents[0].parentId).toBe(PLACE);
    expect(plan.documents.find((d) => d.title === 'D5')?.parentId).toBe(id(3));
    expect(plan.earlierParents).toEqual([]);
  });

  it('names the parents outside the call that an earlier call must have made', () => {
    const plan = planImport(null, [doc(1, 50), doc(2, 1), doc(3)]);
    expect(plan.earlierParents).toEqual([id(50)]);
    expect(plan.documents.find((d) => d.title === 'D3')?.parentId).toBeNull();
  });

  it('refuses duplicate ids, the place as an id, a document as its own parent and cycles, naming the field', () => {
    expect(fieldOf(() => planImport(null, [doc(1), doc(1)]))).toBe('documents[1].id');
    expect(fieldOf(() => planImport(PLACE, [doc(99)]))).toBe('documents[0].id');
    expect(fieldOf(() => planImport(null, [doc(1, 1)]))).toBe('documents[0].parentId');
    expect(fieldOf(() => planImport(null, [doc(1, 3), doc(2, 1), doc(3, 2)]))).toBe('documents[0].parentId');
  });

  it('reads content as the public API does and names the document a refusal is about', () => {
    const plan = planImport(null, [{ ...doc(1), content: '[{"type":"paragraph","content":"hi"}]' }]);
    expect(plan.documents[0].content).toBe('[{"type":"paragraph","content":"hi"}]');
    expect(plan.documents[0].title).toBe('D1');
    expect(planImport(null, [{ id: id(2) }]).documents[0]).toMatchObject({ title: 'Untitled', content: '[]' });
    expect(fieldOf(() => planImport(null, [doc(1), { ...doc(2), content: 'not json' }]))).toBe('documents[1].content');
  });
});

describe('importedSubtrees', () => {
  it('groups imported documents under their topmost imported ancestor, the top first', () => {
    const rows = [
      { id: 'c', workspaceId: 'w', parentId: 'b' },
      { id: 'b', workspaceId: 'w', parentId: 'a' },
      { id: 'a', workspaceId: 'w', parentId: 'outside' },
      { id: 'x', workspaceId: 'w', parentId: null },
    ];
    expect([...importedSubtrees(rows)]).toEqual([
      ['a', ['a', 'c', 'b']],
      ['x', ['x']],
    ]);
  });
});
