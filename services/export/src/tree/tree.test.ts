import { describe, expect, it } from 'vitest';
import { readDocument } from '../domain/model.js';
import { linkedDocumentId, relativeLink, relinkDocument } from './links.js';
import { SiblingNames, safeSegment } from './names.js';
import { placeDocuments } from './outline.js';

const A = '11111111-1111-4111-8111-111111111111';
const W = '22222222-2222-4222-8222-222222222222';

describe('names in the zip', () => {
  it('makes titles safe on every file system', () => {
    expect(safeSegment('a/b\\c:d*e?f"g<h>i|j')).toBe('a_b_c_d_e_f_g_h_i_j');
    expect(safeSegment('CON')).toBe('CON_');
    expect(safeSegment('lpt1.notes')).toBe('lpt1_.notes');
    expect(safeSegment('Console')).toBe('Console');
    expect(safeSegment('trailing dots... ')).toBe('trailing dots');
    expect(safeSegment('   ')).toBe('document');
    // At most 200 bytes, never cut inside a character.
    const cjk = safeSegment('文'.repeat(120));
    expect(Buffer.byteLength(cjk)).toBeLessThanOrEqual(200);
    expect(cjk).toBe('文'.repeat(66));
  });

  it('numbers duplicates among siblings, without regard to case', () => {
    const names = new SiblingNames(['_attachments']);
    expect(['Notes', 'notes', 'Notes', '_Attachments'].map((n) => names.claim(n))).toEqual([
      'Notes',
      'notes (2)',
      'Notes (3)',
      '_Attachments (2)',
    ]);
  });
});

describe('the tree', () => {
  const outline = [
    { id: 'r', parentId: null, title: 'Root' },
    { id: 'c1', parentId: 'r', title: 'Child' },
    { id: 'g', parentId: 'c1', title: 'Grand' },
    { id: 'c2', parentId: 'r', title: 'Child' },
    { id: 'other', parentId: null, title: '_attachments' },
    { id: 'orphan', parentId: 'archived', title: 'Orphan' },
  ];

  it('places a workspace in reading order, folders mirroring the tree', () => {
    expect(placeDocuments(outline, null, true).map((p) => [...p.folder, p.name].join('/'))).toEqual([
      'Root',
      'Root/Child',
      'Root/Child/Grand',
      'Root/Child (2)',
      '_attachments (2)',
    ]);
  });

  it('places a subtree, or one document alone', () => {
    expect(placeDocuments(outline, 'c1', true).map((p) => p.name)).toEqual(['Child', 'Grand']);
    expect(placeDocuments(outline, 'c1', false)).toMatchObject([{ name: 'Child', hasChildren: false }]);
    expect(placeDocuments(outline, 'gone', true)).toEqual([]);
  });
});

describe('links', () => {
  it('knows a link to a document of the web app, on this site or with a host', () => {
    expect(linkedDocumentId(`/w/${W}/d/${A}`)).toBe(A);
    expect(linkedDocumentId(`https://wiki.example.com/w/${W}/d/${A}`)).toBe(A);
    expect(linkedDocumentId(`/w/${W}/settings`)).toBeNull();
    expect(linkedDocumentId('mailto:a@example.com')).toBeNull();
  });

  it('writes relative addresses, each segment encoded', () => {
    expect(relativeLink([], ['Root', 'A b.md'])).toBe('Root/A%20b.md');
    expect(relativeLink(['Root', 'A'], ['Root.md'])).toBe('../../Root.md');
    expect(relativeLink(['Root'], ['Root', 'Twin.md'])).toBe('Twin.md');
    expect(relativeLink(['Root', 'X'], ['Root', 'Y', 'Z.md'])).toBe('../Y/Z.md');
  });

  it('relinks documents it knows and leaves the rest', () => {
    const doc = readDocument('T', [
      {
        type: 'paragraph',
        content: [
          { type: 'link', href: `/w/${W}/d/${A}`, content: 'in' },
          { type: 'link', href: 'https://example.com', content: 'out' },
        ],
      },
      { type: 'image', props: { url: '/api/v1/attachments/file?url=k.png' } },
    ]);
    relinkDocument(doc, { document: (id) => (id === A ? 'A.md' : null), file: () => '_attachments/k.png' });
    expect(doc.blocks).toMatchObject([
      { kind: 'paragraph', runs: [{ href: 'A.md' }, { href: 'https://example.com/' }] },
      { kind: 'image', url: '_attachments/k.png' },
    ]);
  });
});
