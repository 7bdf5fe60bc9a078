import { buffer } from 'node:stream/consumers';
import {
  IMPORT_MAX_DOCUMENTS_PER_CALL,
  type ImportedDocument,
  importDocumentBatch,
  rollbackDocumentImport,
  rollbackImportFiles,
  type ServiceClient,
  storeImportFile,
} from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import { UnrecoverableError } from 'bullmq';
import { type ImportPlan, ImportRefusedError, planUpload, resolvePlaceholders } from '../import/index.js';
import type { JobOutcome, JobRun } from '../jobs/runner.js';
import { parseImportParams } from './params.js';

/** A failure whose message is for the job's owner; never retried (the job is failed at once). */
export class ImportFailedError extends UnrecoverableError {
  readonly shownToOwner = true;
}

/** The document service's body limit is 32 MiB: a call stays under this, leaving room for the envelope. */
const MAX_CALL_BYTES = 30 * 1024 * 1024;
/** How many warnings the job's result lists (the rest are counted). */
export const MAX_RESULT_WARNINGS = 100;

export interface ImportDeps {
  peers: ServiceClient;
  storage: ObjectStorage;
  /** Documents per call (at most the document service's 1,000). */
  batchDocuments?: number;
  /** Called before each call (tests). */
  beforeBatch?: (batch: number, importId: string) => Promise<void>;
}

/** Documents as calls of at most 1,000 documents and MAX_CALL_BYTES each, in plan order (parents first). */
export function batchesOf(
  documents: readonly ImportedDocument[],
  maxDocuments = IMPORT_MAX_DOCUMENTS_PER_CALL,
): ImportedDocument[][] {
  const perCall = Math.min(Math.max(1, maxDocuments), IMPORT_MAX_DOCUMENTS_PER_CALL);
  const batches: ImportedDocument[][] = [];
  let current: ImportedDocument[] = [];
  let size = 0;
  for (const doc of documents) {
    const bytes = Buffer.byteLength(JSON.stringify(doc), 'utf8') + 1;
    if (current.length > 0 && (current.length >= perCall || size + bytes > MAX_CALL_BYTES)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(doc);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * One import job (ARCHITECTURE 5.19): plans the upload with the job's id as seed (a re-run plans
 * the same keys, which are the documents' ids), stores the images, then creates the documents in
 * calls whose links and image URLs are final. A refused upload creates nothing; a failure after
 * the first file was stored rolls back both services and fails the job. The upload stays for
 * another run of the job until the job has its outcome; the runner then deletes it (`cleanUp`).
 */
export async function runImport(run: JobRun, deps: ImportDeps): Promise<JobOutcome | null> {
  const { row, requestId } = run;
  const params = parseImportParams(row.params);
  const importId = row.id;
  const userId = row.ownerId;
  const workspaceId = row.workspaceId;
  try {
    const stream = await deps.storage.get(params.uploadKey);
    if (!stream) {
      // The upload goes only once the job has its outcome: another run of this job finished it.
      if (await run.finished()) return null;
      throw new ImportFailedError('The uploaded file is gone; upload it again');
    }
    let plan: ImportPlan;
    try {
      plan = await planUpload(params.fileName, await buffer(stream), { seed: row.id });
    } catch (error) {
      if (error instanceof ImportRefusedError) throw new ImportFailedError(error.message);
      throw error;
    }
    if (plan.documents.length === 0) throw new ImportFailedError('The upload holds no document to import');
    if (!(await run.start(plan.attachments.length + plan.documents.length))) return null;
    try {
      return await create(run, deps, plan, { importId, userId, workspaceId, parentId: params.parentId });
    } catch (error) {
      await Promise.allSettled([
        rollbackImportFiles(deps.peers, importId, userId, { requestId }),
        rollbackDocumentImport(deps.peers, importId, userId, { requestId }),
      ]);
      const reason = error instanceof Error && 'code' in error ? `: ${error.message}` : '';
      throw new ImportFailedError(`The import failed and was undone${reason}`);
    }
  } catch (error) {
    throw error instanceof ImportFailedError ? error : new ImportFailedError('The import failed');
  }
}

interface Target {
  importId: string;
  userId: string;
  workspaceId: string;
  parentId: string | null;
}

async function create(run: JobRun, deps: ImportDeps, plan: ImportPlan, target: Target): Promise<JobOutcome> {
  const options = { requestId: run.requestId };
  let done = 0;
  const urls = new Map<string, string>();
  for (const file of plan.attachments) {
    const stored = await storeImportFile(
      deps.peers,
      { ...target, documentId: file.documentKey, fileName: file.fileName, bytes: file.bytes },
      options,
    );
    urls.set(file.key, stored.url);
    await run.progress(++done);
  }
  const documents: ImportedDocument[] = plan.documents.map((doc) => ({
    id: doc.key,
    parentId: doc.parentKey,
    title: doc.title,
    position: doc.order,
    content: resolvePlaceholders(doc.content, {
      document: (key) => `/w/${target.workspaceId}/d/${key}`,
      // A planned image is always stored first; an unknown key becomes an empty URL (a broken image).
      attachment: (key) => urls.get(key) ?? '',
    }),
  }));
  const documentIds: string[] = [];
  for (const [index, batch] of batchesOf(documents, deps.batchDocuments).entries()) {
    await deps.beforeBatch?.(index, target.importId);
    const answer = await importDocumentBatch(deps.peers, { ...target, documents: batch }, options);
    documentIds.push(...answer.documentIds);
    done += batch.length;
    await run.progress(done);
  }
  return {
    result: {
      documentIds,
      warnings: plan.warnings.slice(0, MAX_RESULT_WARNINGS),
      warningCount: plan.warnings.length,
    },
  };
}
