import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'minor' | 'major' }) => void;

/**
 * A garbage collection on demand. Every chunk that passes through a socket or a file stream is a
 * new Buffer that V8 frees only at its next collection, and it lets such garbage reach tens of MiB
 * before it collects; memory tests check what a process keeps alive, so they collect as they sample.
 */
export function collector(): Collect {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Collect;
}

/**
 * Runs `work` while sampling this process's memory every 5 ms and collecting young garbage every
 * 10 ms (old garbage every 100 ms). `growth`: how far the RSS rose above where it started (after a
 * collection); `bufferGrowth`: the same for the memory held by Buffers, where a file's bytes live
 * (the RSS also moves with the allocator's arenas and other work in the process, so it is the
 * coarser of the two).
 */
export async function rssGrowthDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; growth: number; bufferGrowth: number }> {
  const gc = collector();
  gc();
  const start = process.memoryUsage.rss();
  const buffersAtStart = process.memoryUsage().arrayBuffers;
  let peak = start;
  let buffersPeak = buffersAtStart;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
    buffersPeak = Math.max(buffersPeak, process.memoryUsage().arrayBuffers);
  };
  const sampler = setInterval(sample, 5);
  // Young-generation collections: cheap, and where the Buffers of chunks in passing die. A chunk
  // still queued on a socket at two of them is moved to the old generation, where only a full
  // collection frees it: one every 100 ms.
  let collections = 0;
  const collecting = setInterval(() => gc({ type: ++collections % 10 === 0 ? 'major' : 'minor' }), 10);
  try {
    const result = await work();
    sample();
    return { result, growth: peak - start, bufferGrowth: buffersPeak - buffersAtStart };
  } finally {
    clearInterval(sampler);
    clearInterval(collecting);
  }
}
