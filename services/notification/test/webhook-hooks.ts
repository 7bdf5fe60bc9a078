import type { SignedInUser, Stack } from '@wiki/testing';
import { expect } from 'vitest';

export interface Hook {
  id: string;
  secret: string;
  workspaceId: string;
}

/** Creates a webhook of the workspace through the API, as `admin` (an ADMIN or the OWNER). */
export async function addHook(
  stack: Stack,
  admin: SignedInUser,
  workspaceId: string,
  url: string,
  events: string[],
): Promise<Hook> {
  const res = await stack.request('POST', `/api/v1/workspaces/${workspaceId}/webhooks`, {
    token: admin.token,
    body: { url, events },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.data.id, secret: res.body.data.secret, workspaceId };
}
