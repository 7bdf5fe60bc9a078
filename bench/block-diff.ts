// `node scripts/run-ts.mjs bench/block-diff.ts [--blocks=2000] [--runs=50]`: the block diff (history
// endpoint) and the collab merge plan of a generated document, timed in this process; prints p50/p99.
import { measureBlockDiff } from './lib/block-diff.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const report = measureBlockDiff(Number(args.blocks ?? 2000), Number(args.runs ?? 50));
console.log(
  `block diff of ${report.blocks} blocks (${report.changes} changes): p50 ${report.diff.p50Ms} ms, p99 ${report.diff.p99Ms} ms`,
);
console.log(
  `merge plan of ${report.blocks} blocks (${report.merge.steps} steps): p50 ${report.merge.p50Ms} ms, p99 ${report.merge.p99Ms} ms`,
);
