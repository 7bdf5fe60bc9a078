import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '@wiki/config';
import { createStorage } from '@wiki/storage';
import type { Stack, StartPart } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { EXPORT_PREFIX } from '../src/queue/jobs.js';
import { startService as startExport } from '../src/service.js';
import type { ExportSettings } from '../src/settings.js';

const run = promisify(execFile);

/** Test settings: short locks so a dead worker's job comes back quickly. */
export const FAST: Partial<ExportSettings> = { lockMs: 2_000, stalledIntervalMs: 1_000, backoffMs: 100 };

/**
 * Gateway → export, with the real workspace and document services. The queue's keys sit under the
 * stack's DB_PREFIX, which the stack's cleanup deletes with its databases.
 */
export function startExportStack(
  settings: Partial<ExportSettings> = {},
  options: { exportRedisUrl?: string } = {},
): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'export'], {
    parts: {
      export: ((config: Config) =>
        startExport(options.exportRedisUrl ? { ...config, redisUrl: options.exportRedisUrl } : config, {
          settings: { ...FAST, ...settings },
        })) as StartPart,
    },
  });
}

/** Finished files still in the export store (none should outlive their request). */
export async function exportFiles(config: Config): Promise<string[]> {
  const storage = await createStorage(config);
  const keys: string[] = [];
  for await (const object of storage.list(EXPORT_PREFIX)) keys.push(object.key);
  return keys;
}

export interface Download {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** GET /documents/{id}/export through the gateway, the body kept as bytes. */
export async function download(stack: Stack, token: string | undefined, id: string, format: string): Promise<Download> {
  const res = await fetch(`${stack.gatewayUrl}/api/v1/documents/${id}/export?format=${encodeURIComponent(format)}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

export function json(download: Download): any {
  return JSON.parse(download.body.toString('utf8'));
}

async function withFile<T>(bytes: Buffer, name: string, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'export-test-'));
  try {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of a PDF, as poppler's pdftotext reads it (layout off). */
export function pdfText(pdf: Buffer): Promise<string> {
  return withFile(pdf, 'file.pdf', async (path) => (await run('pdftotext', ['-enc', 'UTF-8', path, '-'])).stdout);
}

/** The fonts a PDF uses (pdffonts), by name and type, one entry per font object. */
export function pdfFonts(pdf: Buffer): Promise<string[]> {
  return withFile(pdf, 'file.pdf', async (path) =>
    (await run('pdffonts', [path])).stdout
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((line) => line.replace(/\s+/g, ' ').trim()),
  );
}

/** The PDF's outline (bookmarks) as poppler's pdftohtml lists it: `level:title` per entry. */
export function pdfOutline(pdf: Buffer): Promise<string[]> {
  return withFile(pdf, 'file.pdf', async (path) => {
    const xml = (await run('pdftohtml', ['-xml', '-i', '-q', '-stdout', path])).stdout;
    const outline = xml.slice(xml.indexOf('<outline>'));
    const entries: string[] = [];
    let level = 0;
    for (const token of outline.matchAll(/<outline>|<\/outline>|<item[^>]*>([^<]*)<\/item>/g)) {
      if (token[0] === '<outline>') level += 1;
      else if (token[0] === '</outline>') level -= 1;
      else entries.push(`${level}:${token[1]}`);
    }
    return entries;
  });
}

/** One part of a .docx (a zip), e.g. word/document.xml, read with unzip. */
export function docxPart(docx: Buffer, part = 'word/document.xml'): Promise<string> {
  return withFile(
    docx,
    'file.docx',
    async (path) => (await run('unzip', ['-p', path, part], { maxBuffer: 64 << 20 })).stdout,
  );
}

/** The files inside a .docx. */
export function docxParts(docx: Buffer): Promise<string[]> {
  return withFile(docx, 'file.docx', async (path) =>
    (await run('unzip', ['-Z1', path])).stdout.split('\n').filter(Boolean),
  );
}
