import type { DatabasePool } from '@wiki/db';
import { type EventBus, type Logger, startConsumer } from '@wiki/events';
import { saveUser } from '../db/users.js';

interface UserUpserted {
  id?: string;
  idpUid?: string | null;
  email?: string | null;
  name?: string;
  avatarUrl?: string | null;
}

/** Keeps author names and avatars current from user.upserted. */
export function startUserProjection(bus: EventBus, pool: DatabasePool, logger: Logger) {
  return startConsumer({
    bus,
    pool,
    name: 'comment-users',
    types: ['user.upserted'],
    logger,
    handle: async (event, tx) => {
      const data = event.data as UserUpserted;
      if (!data.id || typeof data.name !== 'string') throw new Error('malformed user.upserted event');
      await saveUser(
        tx,
        { id: data.id, name: data.name, email: data.email, avatarUrl: data.avatarUrl, idpUid: data.idpUid },
        true,
      );
    },
  });
}
