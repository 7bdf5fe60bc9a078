import { AppError, CODE_OF_STATUS, ERROR_CODES, ERROR_REASONS, type ErrorCode, type ErrorReason } from '@wiki/http';
import { FormData } from 'undici';
import type { PeerAnswer, PeerError, SendOptions, ServiceClient } from './service-client.js';

/**
 * The calls an import job makes (ARCHITECTURE 5.19): the document service's
 * `POST /internal/documents/import` and `DELETE /internal/documents/import/{importId}`, the
 * attachment service's `POST /internal/attachments` and `DELETE /internal/attachments/import/{importId}`.
 * A refusal of the peer (a 4xx: the import is not allowed, too large, an id is taken…) is thrown
 * as an AppError with the peer's code, reason, message and details, for the job to report; a peer
 * that cannot answer is the usual 503.
 */

/** One document of an import call (see the document service's README). */
export interface ImportedDocument {
  /** Chosen by the importer: links between imported documents can name it before it exists. */
  id: string;
  /** A document of the call or of an earlier call of the same import; null or absent: the import's place. */
  parentId?: string | null;
  title?: string;
  /** A JSON array of blocks, or a string holding one (at most 2 MiB). */
  content?: unknown;
  icon?: string | null;
  /** Order among siblings, ascending. */
  position?: number;
}

export interface DocumentImportCall {
  importId: string;
  workspaceId: string;
  /** Where the import goes; null: the workspace's root. */
  parentId: string | null;
  /** Who imports (EDITOR or above). */
  userId: string;
  /** At most IMPORT_MAX_DOCUMENTS_PER_CALL, and a body of at most 32 MiB. */
  documents: readonly ImportedDocument[];
}

/** The document service's bound per call: a larger import makes several calls with one importId. */
export const IMPORT_MAX_DOCUMENTS_PER_CALL = 1000;

type Options = Pick<SendOptions, 'requestId' | 'timeoutMs'>;
/** An import call writes up to a thousand documents in one transaction: more than the usual 5 s. */
const IMPORT_TIMEOUT_MS = 60_000;

/** A 4xx as the AppError the caller throws on; its code is the peer's when it is one we know. */
async function refusalOf(answer: PeerAnswer): Promise<AppError> {
  let error: PeerError | undefined;
  try {
    error = ((await answer.json()) as { error?: PeerError } | null)?.error;
  } catch {
    error = undefined;
  }
  const code = (
    error?.code && error.code in ERROR_CODES
      ? error.code
      : ((CODE_OF_STATUS as Record<number, ErrorCode>)[answer.status] ?? 'VALIDATION_ERROR')
  ) as ErrorCode;
  const reason = (error as { reason?: string } | undefined)?.reason;
  return new AppError(
    code,
    error?.message ?? `refused with ${answer.status}`,
    Array.isArray(error?.details) ? error.details : undefined,
    reason && reason in ERROR_REASONS ? (reason as ErrorReason) : undefined,
  );
}

/** Sends the call; the envelope's data on a 2xx, the peer's refusal thrown on a 4xx. */
async function callPeer<T>(
  client: ServiceClient,
  peer: 'document' | 'attachment',
  request: Parameters<ServiceClient['send']>[1],
): Promise<T> {
  const outcome = await client.send(peer, request, async (answer) =>
    answer.status < 300 ? { data: ((await answer.json()) as { data: T }).data } : { refused: await refusalOf(answer) },
  );
  if ('refused' in outcome) throw outcome.refused;
  return outcome.data;
}

/** One call of an import: all of its documents are made, or none. Retrying it is safe (idempotent). */
export function importDocumentBatch(
  client: ServiceClient,
  call: DocumentImportCall,
  options: Options = {},
): Promise<{ documentIds: string[]; created: number }> {
  return callPeer(client, 'document', {
    method: 'POST',
    path: '/internal/documents/import',
    body: call,
    timeoutMs: IMPORT_TIMEOUT_MS,
    ...options,
  });
}

/** Removes every document the import made (its rollback); documents others added below them are kept as roots. */
export function rollbackDocumentImport(
  client: ServiceClient,
  importId: string,
  userId: string,
  options: Options = {},
): Promise<{ documentIds: string[]; keptIds: string[] }> {
  const query = new URLSearchParams({ userId });
  return callPeer(client, 'document', {
    method: 'DELETE',
    path: `/internal/documents/import/${encodeURIComponent(importId)}?${query}`,
    timeoutMs: IMPORT_TIMEOUT_MS,
    ...options,
  });
}

export interface ImportFile {
  importId: string;
  workspaceId: string;
  /** The document the file belongs to: one the import is about to make (its chosen id), or an existing one. */
  documentId: string;
  userId: string;
  fileName: string;
  bytes: Uint8Array;
}

/** The stored file as the attachment service answers it (AttachmentResponse); `url` is what content references. */
export interface StoredImportFile {
  id: string;
  documentId: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  url: string;
  width: number | null;
  height: number | null;
  createdAt: string;
}

/** Stores one file of an import (the upload's rules: size, type read from the bytes, images cleaned). */
export function storeImportFile(
  client: ServiceClient,
  file: ImportFile,
  options: Options = {},
): Promise<StoredImportFile> {
  const form = new FormData();
  for (const field of ['workspaceId', 'documentId', 'userId', 'importId', 'fileName'] as const)
    form.append(field, file[field]);
  form.append('file', new Blob([file.bytes]), file.fileName);
  return callPeer(client, 'attachment', {
    method: 'POST',
    path: '/internal/attachments',
    body: form,
    timeoutMs: IMPORT_TIMEOUT_MS,
    ...options,
  });
}

/** Removes every file the import stored (its rollback). */
export function rollbackImportFiles(
  client: ServiceClient,
  importId: string,
  userId: string,
  options: Options = {},
): Promise<{ attachmentIds: string[] }> {
  const query = new URLSearchParams({ userId });
  return callPeer(client, 'attachment', {
    method: 'DELETE',
    path: `/internal/attachments/import/${encodeURIComponent(importId)}?${query}`,
    timeoutMs: IMPORT_TIMEOUT_MS,
    ...options,
  });
}
