import { Worker } from 'node:worker_threads';
import type { TextFormat } from '../domain/text-formats.js';

export interface ExtractionLimits {
  /** Characters kept; the rest is cut (and said so). */
  maxChars: number;
  /** Wall-clock time per file; the worker is ended past it. */
  timeoutMs: number;
  /** Heap of the worker thread, in MiB. */
  maxHeapMiB: number;
}

export type Extraction = { outcome: 'text'; text: string; truncated: boolean } | { outcome: 'failed'; reason: string };

// The same file from src/ (tests) and dist/ (the service): both sit one level below the package.
const WORKER = new URL('../../workers/extract-text.mjs', import.meta.url);

/**
 * The text of one file, from a worker thread bounded in time and memory (workers/extract-text.mjs):
 * a file that cannot be read, takes too long or needs too much memory is 'failed' with a reason,
 * never a crash of the service. Whitespace runs are folded and NUL characters dropped (Postgres
 * text refuses them).
 */
export function extractText(bytes: Buffer, format: TextFormat, limits: ExtractionLimits): Promise<Extraction> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      workerData: { format, bytes, maxChars: limits.maxChars },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMiB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (result: Extraction) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(
      () => settle({ outcome: 'failed', reason: `took longer than ${limits.timeoutMs} ms` }),
      limits.timeoutMs,
    );
    worker.once('message', (message: { text?: string; error?: string }) => {
      if (message.error !== undefined || typeof message.text !== 'string')
        return settle({ outcome: 'failed', reason: message.error ?? 'no text' });
      const folded = message.text
        .replaceAll('\u0000', '')
        .replace(/[ \t\r\f\v]+/g, ' ')
        .replace(/\n\s*\n+/g, '\n\n')
        .trim();
      const truncated = folded.length > limits.maxChars;
      settle({ outcome: 'text', text: truncated ? folded.slice(0, limits.maxChars) : folded, truncated });
    });
    worker.once('error', (error) => settle({ outcome: 'failed', reason: error.message.slice(0, 500) }));
    worker.once('exit', (code) => settle({ outcome: 'failed', reason: `the extraction stopped (exit ${code})` }));
  });
}
