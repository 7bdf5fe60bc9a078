// Extracts the text of one uploaded file inside a worker thread (services/attachment/src/commands/
// extract-text.ts): the thread's heap is capped and the parent ends it at its time limit, so a
// hostile PDF or a zip bomb dressed as a Word file costs at most that. Nothing here opens a
// network connection: the parsers get bytes, never a URL. Plain JavaScript so the same file runs
// under the compiled service and its TypeScript tests.
import { parentPort, workerData } from 'node:worker_threads';

const { format, bytes, maxChars } = workerData;

/** The text of a PDF page by page, stopping once maxChars is reached. */
async function pdfText(data) {
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(data, { isEvalSupported: false, disableFontFace: true, useSystemFonts: false });
  const pages = [];
  let length = 0;
  for (let n = 1; n <= pdf.numPages && length < maxChars; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    const text = content.items
      .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
      .join('')
      .trim();
    pages.push(text);
    length += text.length + 2;
    page.cleanup();
  }
  return pages.join('\n\n');
}

async function docxText(data) {
  const mammoth = (await import('mammoth')).default;
  const result = await mammoth.extractRawText({ buffer: Buffer.from(data) });
  return result.value;
}

/** The text nodes of an HTML page outside script, style and template, blocks on lines of their own. */
async function htmlText(data) {
  const { Parser } = await import('htmlparser2');
  const skipped = new Set(['script', 'style', 'template', 'noscript']);
  const blocks = new Set([
    'p',
    'div',
    'br',
    'li',
    'tr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'pre',
    'blockquote',
    'td',
    'th',
  ]);
  let skipping = 0;
  let text = '';
  const parser = new Parser(
    {
      onopentagname(name) {
        if (skipped.has(name)) skipping++;
        else if (blocks.has(name)) text += '\n';
      },
      onclosetag(name) {
        if (skipped.has(name)) skipping = Math.max(0, skipping - 1);
        else if (blocks.has(name)) text += '\n';
      },
      ontext(chunk) {
        if (!skipping && text.length < maxChars) text += chunk;
      },
    },
    { decodeEntities: true },
  );
  parser.end(new TextDecoder('utf-8').decode(data));
  return text.replace(/[ \t]+/g, ' ').replace(/\n\s*\n+/g, '\n\n');
}

async function extract() {
  const data = new Uint8Array(bytes);
  if (format === 'pdf') return pdfText(data);
  if (format === 'docx') return docxText(data);
  if (format === 'html') return htmlText(data);
  return new TextDecoder('utf-8').decode(data);
}

extract().then(
  (text) => parentPort.postMessage({ text }),
  (error) => parentPort.postMessage({ error: String(error?.message ?? error).slice(0, 500) }),
);
