export const FORMATS = ['pdf', 'docx', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];

/** Spec 4.4's table. */
export const FORMAT_INFO: Record<Format, { contentType: string; extension: string }> = {
  pdf: { contentType: 'application/pdf', extension: 'pdf' },
  docx: {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extension: 'docx',
  },
  markdown: { contentType: 'text/markdown; charset=utf-8', extension: 'md' },
};

export const QUEUE_NAME = 'export';

/** What a job carries: ids only, so a queued job stays small whatever the document holds. */
export interface ExportJobData {
  documentId: string;
  format: Format;
  requestId?: string;
}

/** What a finished job answers: where its file waits in storage, not the file (Redis never holds one). */
export interface ExportJobResult {
  /** The file's storage key (exportKeyOf). */
  key: string;
  bytes: number;
  title: string;
}

/** Finished files live under this prefix of the object store the attachments use (libs/storage). */
export const EXPORT_PREFIX = 'exports/';

/** Where a job's file is stored until its request has sent it (then deleted) or the sweep finds it expired. */
export const exportKeyOf = (jobId: string, format: Format) =>
  `${EXPORT_PREFIX}${jobId}/export.${FORMAT_INFO[format].extension}`;

/** A worker's failure that retrying cannot mend, told apart by the API (404). */
export const DOCUMENT_GONE = 'DOCUMENT_NOT_FOUND';

/**
 * Connection options from REDIS_URL (BullMQ opens and closes its connections from these). Commands
 * never give up (`maxRetriesPerRequest: null`): BullMQ's blocking reads wait for jobs.
 */
export function redisOptions(url: string) {
  return { url, maxRetriesPerRequest: null };
}
