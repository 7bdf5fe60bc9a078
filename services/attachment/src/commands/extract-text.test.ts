import { pdfWithText } from '@wiki/testing';
import { Document, Packer, Paragraph } from 'docx';
import { describe, expect, it } from 'vitest';
import { extractText } from './extract-text.js';

const limits = { maxChars: 100_000, timeoutMs: 20_000, maxHeapMiB: 128 };

describe('extractText (a worker thread bounded in time and memory)', () => {
  it('reads the text of every page of a PDF', async () => {
    const pdf = pdfWithText(['The quarterly contract (signed)', 'Second page mentions aardvarks']);
    const result = await extractText(pdf, 'pdf', limits);
    expect(result.outcome).toBe('text');
    if (result.outcome !== 'text') return;
    expect(result.text).toContain('The quarterly contract (signed)');
    expect(result.text).toContain('Second page mentions aardvarks');
    expect(result.truncated).toBe(false);
  });

  it('reads every line of a page of many lines (a page of ~2,000 characters, as the bench makes)', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `Line ${i} of the ledger, ${'word '.repeat(12).trim()}`);
    const result = await extractText(pdfWithText([lines.join('\n'), 'Last page']), 'pdf', limits);
    expect(result.outcome).toBe('text');
    if (result.outcome !== 'text') return;
    expect(result.text.split('\n')).toEqual([...lines, '', 'Last page']);
  });

  it('reads the paragraphs of a Word document', async () => {
    const doc = new Document({
      sections: [{ children: [new Paragraph('Budget for the lighthouse'), new Paragraph('Zebra crossing')] }],
    });
    const result = await extractText(await Packer.toBuffer(doc), 'docx', limits);
    expect(result).toMatchObject({ outcome: 'text', truncated: false });
    if (result.outcome === 'text')
      expect(result.text.split('\n\n')).toEqual(['Budget for the lighthouse', 'Zebra crossing']);
  });

  it('reads HTML text without scripts, styles or entities left in it', async () => {
    const html =
      '<html><head><style>p{}</style><script>var secret = 1;</script></head><body><h1>Ferry times</h1><p>Tom &amp; Jerry</p></body></html>';
    const result = await extractText(Buffer.from(html), 'html', limits);
    expect(result).toEqual({ outcome: 'text', text: 'Ferry times\n\nTom & Jerry', truncated: false });
  });

  it('keeps plain text, folding whitespace and dropping NUL; cuts at maxChars and says so', async () => {
    const text = Buffer.from('name,city\u0000\nAda,   London\n\n\n\nGrace,New York');
    expect(await extractText(text, 'text', limits)).toEqual({
      outcome: 'text',
      text: 'name,city\nAda, London\n\nGrace,New York',
      truncated: false,
    });
    expect(await extractText(text, 'text', { ...limits, maxChars: 9 })).toEqual({
      outcome: 'text',
      text: 'name,city',
      truncated: true,
    });
  });

  it('answers failed, never throws, for a broken file and for one past the time limit', async () => {
    const broken = await extractText(Buffer.from('%PDF-1.4 this is not a PDF'), 'pdf', limits);
    expect(broken.outcome).toBe('failed');
    const notWord = await extractText(Buffer.from('plain bytes'), 'docx', limits);
    expect(notWord.outcome).toBe('failed');
    const slow = await extractText(pdfWithText(['late']), 'pdf', { ...limits, timeoutMs: 1 });
    expect(slow).toEqual({ outcome: 'failed', reason: 'took longer than 1 ms' });
  });
});
