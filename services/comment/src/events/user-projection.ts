import type { DatabasePool } from '@wiki/db';
import { type EventBus, type Logger, startConsumer } from '@wiki/events';
import { saveUser } from '../db/users.js';

/** Keeps author names and avatars current from user.upserted. */
export function startUserProjection(bus: EventBus, pool: DatabasePool, logger: Logger) {
  return startConsumer({
    bus,
    pool,
    name: 'comment-users',
    types: ['user.upserted'],
    logger,
    handle: (event, tx) => saveUser(tx, event.data, true),
  });
}
