import { describe, expect, it } from 'vitest';
import { batchesOf } from './run.js';

describe('batchesOf', () => {
  it('cuts at 1,000 documents and keeps the plan order', () => {
    const docs = Array.from({ length: 2001 }, (_, i) => ({ id: String(i) }));
    const batches = batchesOf(docs);
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 1]);
    expect(batches.flat().map((d) => d.id)).toEqual(docs.map((d) => d.id));
  });

  it('cuts before a call would pass 30 MiB', () => {
    const big = 'x'.repeat(2 * 1024 * 1024 - 100);
    const batches = batchesOf(Array.from({ length: 20 }, (_, i) => ({ id: String(i), content: big })));
    expect(batches.map((b) => b.length)).toEqual([15, 5]);
  });
});
