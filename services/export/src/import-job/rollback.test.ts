import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { PeerAnswer, SendRequest, ServiceClient } from '@wiki/service-client';
import { LocalStorage } from '@wiki/storage';
import { png } from '@wiki/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import type { JobRow } from '../db/jobs.js';
import type { JobRun } from '../jobs/runner.js';
import { runImport } from './run.js';

const JOB_ID = '4a1b2c3d-0000-4000-8000-000000000001';
const UPLOAD = 'import-uploads/test';

let dir: string;
let storage: LocalStorage;
let calls: string[];

/** The peers as the job sees them: files are stored, the document call is refused, rollbacks answer. */
const peers = {
  async send(peer: string, request: SendRequest, handle: (answer: PeerAnswer) => Promise<unknown>) {
    calls.push(`${request.method} ${peer} ${request.path.split('?')[0]}`);
    const answer = (status: number, body: unknown) =>
      handle({ status, headers: {}, json: async () => body, bytes: async () => new Uint8Array() });
    if (request.method === 'DELETE') return answer(200, { data: { documentIds: [], keptIds: [], attachmentIds: [] } });
    if (peer === 'attachment') return answer(201, { data: { url: '/api/v1/attachments/file?url=x' } });
    return answer(409, { error: { code: 'CONFLICT', message: 'A document id is taken' } });
  },
} as unknown as ServiceClient;

function runOf(fileName: string, finished = false): JobRun {
  const row = {
    id: JOB_ID,
    kind: 'import',
    ownerId: '4a1b2c3d-0000-4000-8000-000000000002',
    workspaceId: '4a1b2c3d-0000-4000-8000-000000000003',
    params: { uploadKey: UPLOAD, fileName, parentId: null },
  } as unknown as JobRow;
  return {
    row,
    runId: 'run',
    start: async () => true,
    progress: async () => undefined,
    finished: async () => finished,
  };
}

async function upload(bytes: Buffer) {
  await storage.put(UPLOAD, Readable.from([bytes]), bytes.length, 'application/octet-stream');
}

async function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  return buffer(zip.outputStream);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-job-test-'));
  storage = new LocalStorage(dir);
  await storage.prepare();
  calls = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('runImport when something fails', { timeout: 30_000 }, () => {
  it('rolls back the files and documents of the import when a document call is refused midway', async () => {
    await upload(await zipOf({ 'a.md': '# A\n\n![p](p.png)\n', 'p.png': png(4, 4) }));
    const failure = await runImport(runOf('site.zip'), { peers, storage }).catch((e: Error) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('The import failed and was undone: A document id is taken');
    expect(calls).toEqual([
      'POST attachment /internal/attachments',
      'POST document /internal/documents/import',
      `DELETE attachment /internal/attachments/import/${JOB_ID}`,
      `DELETE document /internal/documents/import/${JOB_ID}`,
    ]);
    // The upload waits for the runner, which deletes it once the failure is written.
    expect(await storage.stat(UPLOAD)).not.toBeNull();
  });

  it('creates nothing for a refused upload and says why', async () => {
    await upload(Buffer.from('not a zip at all'));
    const failure = await runImport(runOf('site.zip'), { peers, storage }).catch((e: Error) => e);
    expect((failure as Error).message).not.toBe('The import failed');
    expect(calls).toEqual([]);
  });

  it('does nothing when the upload is gone because another run of the job finished it', async () => {
    expect(await runImport(runOf('site.zip', true), { peers, storage })).toBeNull();
    const failure = await runImport(runOf('site.zip', false), { peers, storage }).catch((e: Error) => e);
    expect((failure as Error).message).toBe('The uploaded file is gone; upload it again');
    expect(calls).toEqual([]);
  });
});
