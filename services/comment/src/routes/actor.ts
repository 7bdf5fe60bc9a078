import type { Identity } from '@wiki/auth';
import type { Actor } from '../commands/context.js';

export function actorOf(identity: Identity & { userId: string }): Actor {
  return { userId: identity.userId, name: identity.name, email: identity.email, avatarUrl: identity.avatarUrl, idpUid: identity.idpUid };
}
