import { readdirSync, readFileSync } from 'node:fs';

/** The parent of every process now, from /proc/<pid>/stat (field 4). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we looked
    }
  }
  return parentOf;
}

/** Every process below `pid` (children, their children, ...), from /proc. */
export function descendants(pid: number): number[] {
  const parentOf = parents();
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    frontier = [...parentOf].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}
