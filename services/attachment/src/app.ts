import { join } from 'node:path';
import type { Config } from '@wiki/config';
import { type DatabasePool, sql } from '@wiki/db';
import type { HealthCheck } from '@wiki/http';
import { createMembershipAccess, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { ServiceClient } from '@wiki/service-client';
import { createStorage, type ObjectStorage } from '@wiki/storage';
import type { FastifyInstance } from 'fastify';
import { createImageCleaner } from './commands/clean-image.js';
import type { ExtractionLimits } from './commands/extract-text.js';
import type { AttachmentContext } from './context.js';
import { registerAttachmentRoutes } from './routes/attachments.js';
import { registerInternalRoutes } from './routes/internal.js';
import { registerImportUploadRoutes } from './routes/internal-uploads.js';
import { loadAttachmentSettings } from './settings.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Who is a member, with which role (service.ts starts its projection as a consumer). */
    attachmentMembership: MembershipAccess;
    /** The object store the routes, consumers and the sweep share. */
    attachmentStorage: ObjectStorage;
    attachmentSpoolDir: string;
    /** Calls to the other services (the import file sweep asks the document service). */
    attachmentPeers: ServiceClient;
    /** What the text extraction consumer (events/text-extraction.ts) may spend per file. */
    attachmentTextLimits: ExtractionLimits & { maxFileBytes: number };
  }
}

export type AppDeps = ServiceAppDeps & {
  /** Another store than the configured one (tests). */
  storage?: ObjectStorage;
};

/** Where uploads are spooled while they arrive (see commands/spool.ts). */
export const spoolDirOf = (config: Config) => join(config.dataDir, 'attachment-spool');

const ping = sql.unsafe`SELECT 1`;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const settings = loadAttachmentSettings(config.env);
  const storage = deps.storage ?? (await createStorage(config));
  await storage.prepare();
  const checks: Record<string, HealthCheck> = {
    ...(deps.checks ?? { database: () => deps.pool.query(ping) }),
    storage: () => storage.check(),
  };
  const { app, peers } = await createServiceApp(
    config,
    { ...deps, checks },
    {
      service: 'attachment',
      openapi: { title: 'Attachment service', description: 'Files of documents (spec 4.7, ARCHITECTURE 5.9)' },
    },
  );
  const membership = createMembershipAccess({ pool: deps.pool, client: peers, service: 'attachment', logger: app.log });
  const spoolDir = spoolDirOf(config);
  app.decorate('attachmentMembership', membership);
  app.decorate('attachmentStorage', storage);
  app.decorate('attachmentSpoolDir', spoolDir);
  app.decorate('attachmentPeers', peers);
  app.decorate('attachmentTextLimits', { ...settings.textExtraction, maxFileBytes: settings.uploadMaxBytes });
  const ctx: AttachmentContext = {
    pool: deps.pool as DatabasePool,
    storage,
    membership,
    peers,
    uploadMaxBytes: settings.uploadMaxBytes,
    spoolDir,
    images: settings.keepMetadata ? undefined : createImageCleaner({ maxPixels: settings.imageMaxPixels }),
    logger: app.log,
  };
  await registerAttachmentRoutes(app, ctx);
  registerInternalRoutes(app, ctx);
  await registerImportUploadRoutes(app, ctx);
  return app;
}
