import { Readable } from 'node:stream';
import type { Config } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
import { createServiceClient, type ServiceClient } from '@wiki/service-client';
import { createStorage, type ObjectStorage } from '@wiki/storage';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { readDocument } from '../domain/model.js';
import { parseImportParams } from '../import-job/params.js';
import { runImport } from '../import-job/run.js';
import { startJobRunner } from '../jobs/runner.js';
import { renderHtml } from '../render/html.js';
import { attachmentImageSource, loadImages } from '../render/images.js';
import { renderMarkdown } from '../render/markdown.js';
import { PdfRenderer } from '../render/pdf.js';
import type { ExportSettings } from '../settings.js';
import { exportTree } from '../tree/export-tree.js';
import {
  DOCUMENT_GONE,
  type ExportJobData,
  type ExportJobResult,
  exportKeyOf,
  FORMAT_INFO,
  QUEUE_NAME,
  redisOptions,
} from './jobs.js';

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ExportWorkerOptions {
  config: Pick<Config, 'redisUrl' | 'urls' | 'internalTokenSecret' | 'env' | 'dataDir'>;
  settings: ExportSettings;
  prefix: string;
  logger: WorkerLogger;
  /** The client for the document and attachment services; made here when not given. */
  peers?: ServiceClient;
  /** Where finished files go (the configured store unless given): the API streams them from there. */
  storage?: ObjectStorage;
  /** The export database: with it, this worker also runs the long jobs (tree exports, jobs/runner.ts). */
  pool?: DatabasePool;
}

export interface RunningWorker {
  worker: Worker<ExportJobData, ExportJobResult>;
  /** The worker of long jobs, when it was started with the database. */
  jobWorker?: Worker;
  renderer: PdfRenderer;
  stop(): Promise<void>;
}

interface DocumentContent {
  id: string;
  workspaceId: string;
  title: string;
  content: string;
}

function parseContent(data: unknown): DocumentContent {
  const d = data as Partial<Record<keyof DocumentContent, unknown>> | null;
  if (
    typeof d?.id !== 'string' ||
    typeof d.workspaceId !== 'string' ||
    typeof d.title !== 'string' ||
    typeof d.content !== 'string'
  ) {
    throw new Error('the document content answer lacks a field');
  }
  return { id: d.id, workspaceId: d.workspaceId, title: d.title, content: d.content };
}

/**
 * The worker role: takes jobs off the queue, reads the document from the document service, renders
 * it, and stores the file in the object store (libs/storage, under exports/), where the API streams
 * it from and then deletes it; one nobody collects is removed by the expiry sweep.
 * A job that fails is retried with back-off (the API set its attempts); a worker that dies keeps
 * its jobs only until their lock lapses, then another worker's stalled-job check takes them.
 */
/**
 * The Word renderer and its `docx` package are loaded by the first Word export, not at start
 * (docs/PERFORMANCE.md, "What each part loads at start"). One import for every caller.
 */
let docxRenderer: Promise<typeof import('../render/docx.js')> | undefined;
function loadDocxRenderer(): Promise<typeof import('../render/docx.js')> {
  docxRenderer ??= import('../render/docx.js');
  return docxRenderer;
}

export async function startExportWorker(options: ExportWorkerOptions): Promise<RunningWorker> {
  const { config, settings, prefix, logger } = options;
  const peers = options.peers ?? createServiceClient({ service: 'export', config, logger });
  const images = settings.images ?? attachmentImageSource(peers);
  const renderer = new PdfRenderer({
    executablePath: settings.chromiumPath,
    renderTimeoutMs: settings.renderTimeoutMs,
    maxIdlePages: settings.concurrency,
    sandbox: settings.chromiumSandbox,
    user: settings.chromiumUser,
    env: config.env,
    logger,
  });
  const storage = options.storage ?? (await createStorage(config));
  await storage.prepare();

  async function render(job: Job<ExportJobData, ExportJobResult>): Promise<ExportJobResult> {
    const { documentId, format, requestId } = job.data;
    const found = await peers.get('document', `/internal/documents/${encodeURIComponent(documentId)}/content`, {
      requestId,
      parse: parseContent,
    });
    if (!found) throw new UnrecoverableError(DOCUMENT_GONE);
    const doc = readDocument(found.title, found.content);
    let file: Uint8Array;
    if (format === 'markdown') file = renderMarkdown(doc);
    else {
      const loaded = await loadImages(doc, images, {
        workspaceId: found.workspaceId,
        requestId,
        imageMaxBytes: settings.imageMaxBytes,
      });
      file =
        format === 'docx'
          ? await (await loadDocxRenderer()).renderDocx(doc, loaded)
          : await renderer.render(renderHtml(doc, loaded));
    }
    // A failed write fails the job, which is retried; a retry writes the same key again.
    const key = exportKeyOf(job.id ?? documentId, format);
    const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    await storage.put(key, Readable.from([bytes]), bytes.length, FORMAT_INFO[format].contentType);
    return { key, bytes: bytes.length, title: found.title };
  }

  const worker = new Worker<ExportJobData, ExportJobResult>(QUEUE_NAME, render, {
    connection: redisOptions(config.redisUrl),
    prefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: settings.stalledIntervalMs,
    // A job whose worker died twice is given up (a document that kills workers must not kill them all).
    maxStalledCount: 2,
  });
  worker.on('failed', (job, error) => {
    logger.warn(
      {
        jobId: job?.id,
        documentId: job?.data.documentId,
        format: job?.data.format,
        attempt: job?.attemptsMade,
        err: error,
      },
      'an export job failed',
    );
  });
  // Which process rendered a job: with several workers on one queue, the operator (and the
  // two-replica test) can see that they share the work.
  worker.on('completed', (job) => {
    logger.info(
      { jobId: job.id, documentId: job.data.documentId, format: job.data.format, attempt: job.attemptsMade },
      'an export job finished',
    );
  });
  worker.on('error', (error) => logger.error({ err: error }, 'the export worker hit an error'));
  await worker.waitUntilReady();

  // Long jobs share this worker's clients and browser.
  const jobs = options.pool
    ? await startJobRunner({
        config,
        pool: options.pool,
        storage,
        settings,
        prefix,
        logger,
        handlers: {
          export: async (run) => {
            const outcome = await exportTree(
              {
                id: run.row.id,
                workspaceId: run.row.workspaceId,
                params: run.row.params,
                runId: run.runId,
                requestId: run.requestId,
                start: run.start,
                progress: run.progress,
              },
              {
                peers,
                images,
                storage,
                pdf: renderer,
                imageMaxBytes: settings.imageMaxBytes,
                renderDocx: async (doc, loaded) => (await loadDocxRenderer()).renderDocx(doc, loaded),
              },
            );
            if (!outcome) return null;
            const { fileKey, ...facts } = outcome;
            return { fileKey, result: { downloadUrl: `/api/v1/jobs/${run.row.id}/download`, ...facts } };
          },
          import: (run) =>
            runImport(run, {
              peers,
              storage,
              batchDocuments: settings.importBatchDocuments,
              beforeBatch: settings.beforeImportBatch,
            }),
        },
        cleanUp: { import: (row) => storage.delete(parseImportParams(row.params).uploadKey) },
      })
    : undefined;

  return {
    worker,
    jobWorker: jobs?.worker as Worker | undefined,
    renderer,
    async stop() {
      // Jobs in hand finish first (a graceful stop loses nothing), then the browser goes.
      await Promise.all([worker.close(), jobs?.stop()]);
      await renderer.close();
    },
  };
}
