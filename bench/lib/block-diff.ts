import { type Block, diffBlocks, planMerge } from '@wiki/blocks';

/**
 * The block diff of the history endpoint (ARCHITECTURE 5.16) and the merge plan of the collab
 * server, timed in-process on a generated document: 2,000 blocks by default (paragraphs of
 * 20–60 words, every tenth a heading, every fiftieth a table, every twentieth with two nested
 * children), and a later version of it where one block in ten changed a few words, 20 were
 * removed, 20 added and 10 moved.
 */
export interface BlockDiffReport {
  blocks: number;
  runs: number;
  changes: number;
  diff: { p50Ms: number; p99Ms: number };
  merge: { p50Ms: number; p99Ms: number; steps: number };
}

const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(
    ' ',
  );

/** A deterministic pseudo-random sequence (mulberry32): the same document on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function words(next: () => number, count: number): string {
  return Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

const text = (t: string) => [{ type: 'text', text: t, styles: {} }];

function makeBlock(next: () => number, i: number): Block {
  const id = `block-${i}`;
  if (i % 50 === 49) {
    const rows = Array.from({ length: 4 }, () => ({ cells: Array.from({ length: 3 }, () => text(words(next, 3))) }));
    return { id, type: 'table', props: {}, content: { type: 'tableContent', rows }, children: [] };
  }
  const type = i % 10 === 0 ? 'heading' : 'paragraph';
  const children =
    i % 20 === 5
      ? [0, 1].map((c) => ({
          id: `${id}-child-${c}`,
          type: 'bulletListItem',
          props: {},
          content: text(words(next, 12)),
          children: [],
        }))
      : [];
  return {
    id,
    type,
    props: type === 'heading' ? { level: 2 } : {},
    content: text(words(next, 20 + Math.floor(next() * 40))),
    children,
  };
}

/** A document of `size` top-level blocks (nested children not counted) and its later version. */
export function documentPair(size: number): { from: Block[]; to: Block[] } {
  const next = random(26);
  const from = Array.from({ length: size }, (_, i) => makeBlock(next, i));
  const to = from.map((block, i) => {
    if (i % 10 !== 3 || block.type === 'table') return block;
    const edited = `${(block.content as Array<{ text: string }>)[0]!.text.replace(/ \w+ /, ' changed ')} and more`;
    return { ...block, content: text(edited) };
  });
  to.splice(size / 2, 20);
  for (let i = 0; i < 20; i += 1) to.splice(Math.floor(next() * to.length), 0, makeBlock(next, size + i));
  for (let i = 0; i < 10; i += 1) {
    const [moved] = to.splice(Math.floor(next() * to.length), 1);
    to.splice(Math.floor(next() * to.length), 0, moved!);
  }
  return { from, to };
}

function percentiles(samples: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function measureBlockDiff(size = 2000, runs = 50): BlockDiffReport {
  const { from, to } = documentPair(size);
  let changes = 0;
  let steps = 0;
  for (let i = 0; i < 5; i += 1) diffBlocks(from, to); // warm-up
  const diffTimes: number[] = [];
  const mergeTimes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    let start = performance.now();
    changes = diffBlocks(from, to).length;
    diffTimes.push(performance.now() - start);
    start = performance.now();
    steps = planMerge(from, from, to).length;
    mergeTimes.push(performance.now() - start);
  }
  return { blocks: size, runs, changes, diff: percentiles(diffTimes), merge: { ...percentiles(mergeTimes), steps } };
}
