import { z } from '@wiki/db';
import type { UserProfile } from '../db/users.js';
import type { InternalGet } from './internal-fetch.js';

const answer = z.object({
  data: z.object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable().optional(),
    avatarUrl: z.string().nullable().optional(),
    idpUid: z.string().nullable().optional(),
  }),
});

/** The workspace service's `GET /internal/users/:id`: the user's profile, or null when unknown. */
export function workspaceServiceClient(baseUrl: string, get: InternalGet) {
  return {
    async fetchUser(id: string): Promise<UserProfile | null> {
      const body = await get(`${baseUrl}/internal/users/${encodeURIComponent(id)}`);
      if (body === null) return null;
      const { data } = answer.parse(body);
      return data;
    },
  };
}
export type WorkspaceServiceClient = ReturnType<typeof workspaceServiceClient>;
