import type { Config } from '@wiki/config';
import { createMembershipAccess, createUsersProjection, type MembershipAccess } from '@wiki/projections';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import type { DocumentContext } from './context.js';
import { batchedDocumentInserts } from './db/document-inserts.js';
import { createPreparedStatements, type PreparedStatements } from './db/prepared-statements.js';
import { writeRevisionSettings } from './db/revision-settings.js';
import { rememberedWorkspaceOf } from './db/workspace-of.js';
import { rememberedLists } from './queries/list-answers.js';
import { rememberedTrees } from './queries/tree-answers.js';
import { sharedVersionReads } from './queries/version-reads.js';
import { registerArchivedRoutes } from './routes/archived-documents.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerCollabRoutes } from './routes/internal-collab.js';
import { registerServiceRoutes } from './routes/internal-documents.js';
import { registerImportRoutes } from './routes/internal-imports.js';
import { registerTreeServiceRoutes } from './routes/internal-tree.js';
import { registerPublicRoutes } from './routes/public-documents.js';
import { registerRevisionRoutes } from './routes/revisions.js';
import { loadDocumentSettings } from './settings.js';

export interface AppDeps extends ServiceAppDeps {
  /** Wakes the outbox relay after writes that bypass `pool` (the batched creations). */
  wakeRelay?: () => void;
  /** Defaults to the shared membership helper on `pool`. */
  membership?: MembershipAccess;
  /** Defaults to prepared statements on a pool of the service's own (closed with the app). */
  prepared?: PreparedStatements;
}

/** ARCHITECTURE 5.14: document bodies up to 3 MiB (content itself at most 2 MiB). */
export const DOCUMENT_BODY_LIMIT = 3 * 1024 * 1024;

const contexts = new WeakMap<FastifyInstance, DocumentContext>();

/** The context an app was built with (startService uses it to start the membership projection). */
export function documentContextOf(app: FastifyInstance): DocumentContext {
  const ctx = contexts.get(app);
  if (!ctx) throw new Error('not an app built by the document service');
  return ctx;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { app, peers } = await createServiceApp(config, deps, {
    service: 'document',
    bodyLimit: DOCUMENT_BODY_LIMIT,
    openapi: {
      title: 'Document service',
      description: 'Documents, tree, publishing and the internal collaboration API',
    },
  });

  const { pool } = deps;
  const settings = loadDocumentSettings(config.env);
  await writeRevisionSettings(pool, settings.revisions);
  let prepared = deps.prepared;
  if (!prepared) {
    const owned = createPreparedStatements(config.databaseUrls.document, app.log);
    app.addHook('onClose', () => owned.end());
    prepared = owned;
  }
  const wakeRelay = deps.wakeRelay ?? (() => {});
  // The version the tree and the lists are kept under, read once for the requests asking together.
  const statements = prepared;
  const versionOf = sharedVersionReads((workspaceId) => statements.workspaceVersion(workspaceId));
  const ctx: DocumentContext = {
    settings,
    pool,
    prepared,
    workspaceOf: rememberedWorkspaceOf(pool),
    treeAnswer: rememberedTrees(pool, versionOf),
    lists: rememberedLists(prepared, versionOf, pool),
    wakeRelay,
    insertDocument: batchedDocumentInserts(prepared, wakeRelay),
    membership:
      deps.membership ?? createMembershipAccess({ pool, client: peers, service: 'document', logger: app.log }),
    users: createUsersProjection({ pool, client: peers, logger: app.log }),
  };
  contexts.set(app, ctx);

  registerDocumentRoutes(app, ctx);
  registerArchivedRoutes(app, ctx);
  registerRevisionRoutes(app, ctx);
  registerPublicRoutes(app, ctx);
  await registerCollabRoutes(app, ctx);
  registerServiceRoutes(app, ctx);
  registerTreeServiceRoutes(app, ctx);
  registerImportRoutes(app, ctx);
  return app;
}
