import { readFileSync, writeFileSync } from 'node:fs';
import { descendants } from './proc.js';

const kib = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? 0);
const mib = (kB: number) => Math.round((kB / 1024) * 10) / 10;

function rssKiB(pid: number): number {
  try {
    return kib(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
  } catch {
    return 0;
  }
}

export interface PeakRss {
  /** The process's own peak (VmHWM since the start of the measurement, or the sampled peak if higher). */
  processMiB: number;
  /** The sampled peak of the process and everything under it together (Chromium for a PDF export). */
  withChildrenMiB: number;
}

/**
 * Follows the peak RSS of a process while something runs: its VmHWM, reset first through
 * /proc/<pid>/clear_refs (5 resets the peak to the current RSS), and samples every `everyMs` of its
 * RSS and of its process tree's. Shared pages count once per process in the tree's sum.
 */
export function watchPeakRss(pid: number, everyMs = 250): { stop(): PeakRss } {
  let hwmReset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false; // another kernel or no permission: the samples alone
  }
  let processPeak = rssKiB(pid);
  let treePeak = 0;
  const sample = () => {
    processPeak = Math.max(processPeak, rssKiB(pid));
    treePeak = Math.max(
      treePeak,
      [pid, ...descendants(pid)].reduce((sum, p) => sum + rssKiB(p), 0),
    );
  };
  sample();
  // Unreferenced: a row that throws before stop() must not keep the bench process alive.
  const timer = setInterval(sample, everyMs).unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      if (hwmReset) {
        try {
          processPeak = Math.max(processPeak, kib(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmHWM'));
        } catch {
          // ended
        }
      }
      return { processMiB: mib(processPeak), withChildrenMiB: mib(treePeak) };
    },
  };
}
