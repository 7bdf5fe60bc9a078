import { pdfWithText } from '@wiki/testing';
import { extractText } from '../../services/attachment/src/commands/extract-text.js';
import { loadAttachmentSettings } from '../../services/attachment/src/settings.js';
import { corpus } from './search-corpus.js';

/**
 * Text extraction throughput (issue 30 point 6): the attachment service's own extraction (its
 * worker thread, with the service's default limits) on a text PDF of `pages` pages of ~2,000
 * characters, `runs` times one after another. The worker lives in this process, so its memory is
 * read as this process's RSS, sampled while it runs, above the RSS just before it started.
 */
export interface ExtractionResult {
  pages: number;
  charsPerPage: number;
  pdfBytes: number;
  /** Characters of the pages' text, and what the extraction answered (every page was read). */
  textChars: number;
  extractedChars: number;
  runs: number;
  /** Wall time of each run, worker start and end included (ms). */
  runMs: number[];
  medianMs: number;
  medianPagesPerSec: number;
  /** The highest RSS growth seen over all runs, every 5 ms (MiB). */
  peakRssGrowthMiB: number;
  /** The worker's heap cap (ATTACHMENTS_TEXT_MAX_HEAP_MIB, the default). */
  maxHeapMiB: number;
}

const MiB = 2 ** 20;

/** Characters of a line: what fits the page's width (pdf.js drops glyphs past its edge). */
const LINE_CHARS = 80;

/** `pages` pages of generated words, each ~`chars` characters in lines of at most LINE_CHARS. */
function pageTexts(pages: number, chars: number): string[] {
  const make = corpus(400, 12, false);
  return Array.from({ length: pages }, (_, i) => {
    const lines: string[] = [];
    let line = '';
    let length = 0;
    for (const word of make(i).text.split(' ')) {
      if (length + line.length + word.length + 1 > chars) break;
      if (line && line.length + word.length + 1 > LINE_CHARS) {
        lines.push(line);
        length += line.length + 1;
        line = '';
      }
      line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(line);
    return lines.join('\n');
  });
}

export async function benchExtraction(
  opts: { pages?: number; charsPerPage?: number; runs?: number; log?: (message: string) => void } = {},
): Promise<ExtractionResult> {
  const pages = opts.pages ?? 100;
  const charsPerPage = opts.charsPerPage ?? 2_000;
  const runs = opts.runs ?? 5;
  const limits = loadAttachmentSettings({}).textExtraction;
  const texts = pageTexts(pages, charsPerPage);
  const pdf = pdfWithText(texts);
  const textChars = texts.reduce((sum, text) => sum + text.length, 0);
  const runMs: number[] = [];
  let extractedChars = 0;
  let peakRssGrowthMiB = 0;
  for (let run = 0; run < runs; run++) {
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const started = performance.now();
    const result = await extractText(pdf, 'pdf', limits);
    const ms = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    if (result.outcome !== 'text') throw new Error(`extraction failed: ${result.reason}`);
    // Lines and pages join with one or two line breaks: short of that, pages went unread.
    if (result.text.length < textChars * 0.98)
      throw new Error(`extraction answered ${result.text.length} of ${textChars} characters`);
    extractedChars = result.text.length;
    runMs.push(Math.round(ms * 10) / 10);
    peakRssGrowthMiB = Math.max(peakRssGrowthMiB, Math.round(((peak - before) / MiB) * 10) / 10);
    opts.log?.(`extraction ${run + 1}/${runs}: ${pages} pages in ${Math.round(ms)} ms`);
  }
  const sorted = [...runMs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const medianMs = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return {
    pages,
    charsPerPage,
    pdfBytes: pdf.length,
    textChars,
    extractedChars,
    runs,
    runMs,
    medianMs,
    medianPagesPerSec: Math.round((pages / (medianMs / 1000)) * 10) / 10,
    peakRssGrowthMiB,
    maxHeapMiB: limits.maxHeapMiB,
  };
}
