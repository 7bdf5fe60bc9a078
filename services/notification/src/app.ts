import { createMembershipAccess, type MembershipAccess, type ServiceClient } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createServiceApp, type ServiceAppDeps } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import { registerNotificationRoutes } from './routes/notifications.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Who is a member: comment notifications go to members only (service.ts starts its consumer). */
    notificationMembership: MembershipAccess;
    /** The client for peers (members and users the projections do not hold yet). */
    notificationPeers: ServiceClient;
  }
}

export type AppDeps = ServiceAppDeps;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { app, peers } = await createServiceApp(config, deps, {
    service: 'notification',
    openapi: { title: 'Notification service', description: 'Notifications of users (spec 4.9, ARCHITECTURE 5.6)' },
  });
  const logger = app.log;
  app.decorate(
    'notificationMembership',
    createMembershipAccess({ pool: deps.pool, client: peers, service: 'notification', logger }),
  );
  app.decorate('notificationPeers', peers);
  registerNotificationRoutes(app, { pool: deps.pool });
  return app;
}
