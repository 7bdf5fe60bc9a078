import type { DatabasePool } from '@wiki/db';
import type { MembershipAccess } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import type { ObjectStorage } from '@wiki/storage';
import type { ImageCleaner } from './commands/clean-image.js';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the commands work with; made once in buildApp. */
export interface AttachmentContext {
  pool: DatabasePool;
  storage: ObjectStorage;
  membership: MembershipAccess;
  peers: ServiceClient;
  /** UPLOAD_MAX_BYTES: the largest file accepted. */
  uploadMaxBytes: number;
  /** Where uploads are written while they arrive, before anything is stored. */
  spoolDir: string;
  /** Removes metadata from JPEG, PNG and WebP uploads; absent with ATTACHMENTS_KEEP_METADATA=true. */
  images?: ImageCleaner;
  logger: Logger;
}
