import { randomBytes } from 'node:crypto';
import type { Role } from '@wiki/auth';
import { type DatabasePool, sql, z } from '@wiki/db';
import type { ApiResponse, RequestOptions, SignedInUser } from './stack.js';

/**
 * Factories for what a test needs before it can test anything: users, workspaces, members,
 * documents. They go through the public API as a client would, so what they make is what the
 * services make, and each throws with the status and body when the API refuses, so a broken setup
 * fails there and not three assertions later.
 *
 * Every test makes its own: a fresh user (signInNew) and, when it changes a workspace or a
 * document, its own of those too; nothing a test needs comes from what another test left behind.
 */

/** What the factories need of a running system: a Stack, or a harness that runs one service alone. */
export interface TestApi {
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  signIn(email: string, name?: string): Promise<SignedInUser>;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** A role a member can be given (OWNER only comes with creating a workspace or a transfer). */
export type MemberRole = Exclude<Role, 'OWNER'>;

/** Throws with what the API answered unless it answered `expected`. */
export function expectStatus<T>(res: ApiResponse<T>, expected: number, what: string): ApiResponse<T> {
  if (res.status !== expected) {
    throw new Error(`${what}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res;
}

/** An email nobody else in the run has: `name` made lowercase and dashed, then a random tag. */
export function uniqueEmail(name = 'user'): string {
  const local =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'user';
  return `${local}-${randomBytes(4).toString('hex')}@example.com`;
}

/** Signs a new user in (their first sign-in also makes their default workspace): a fresh one every call. */
export function signInNew(api: TestApi, name?: string): Promise<SignedInUser> {
  return api.signIn(uniqueEmail(name), name);
}

export interface WorkspaceFields {
  name?: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
}

/** The WorkspaceResponse the API answered (its other fields untyped). */
export interface CreatedWorkspace {
  id: string;
  name: string;
  ownerId: string;
  [field: string]: any;
}

/** A workspace owned by `owner`, named uniquely unless `fields.name` says otherwise. */
export async function createWorkspace(
  api: TestApi,
  owner: SignedInUser,
  fields: WorkspaceFields = {},
): Promise<CreatedWorkspace> {
  const body = { name: `Workspace ${randomBytes(3).toString('hex')}`, ...fields };
  const res = await api.request('POST', '/api/v1/workspaces', { token: owner.token, body });
  return expectStatus(res, 201, `create workspace as ${owner.email}`).body.data;
}

/** The WorkspaceMemberResponse of a new member. */
export interface AddedMember {
  /** The membership's id (what role changes and removals address). */
  id: string;
  userId: string;
  role: Role;
  [field: string]: any;
}

/** Makes `user` a member with `role`: `inviter` (ADMIN or OWNER) invites, `user` accepts. */
export async function addMember(
  api: TestApi,
  workspaceId: string,
  inviter: SignedInUser,
  user: SignedInUser,
  role: MemberRole,
): Promise<AddedMember> {
  const invited = await api.request('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, {
    token: inviter.token,
    body: { email: user.email, role },
  });
  expectStatus(invited, 201, `invite ${user.email} as ${role}`);
  const token = String(invited.body.data.inviteLink).split('/invite/')[1];
  const accepted = await api.request('POST', `/api/v1/invitations/${token}/accept`, { token: user.token });
  return expectStatus(accepted, 200, `accept the invitation as ${user.email}`).body.data;
}

/** A workspace owned by `owner` with each of `members` in it with the given role. */
export async function workspaceWith(
  api: TestApi,
  owner: SignedInUser,
  members: Array<[SignedInUser, MemberRole]> = [],
  fields: WorkspaceFields = {},
): Promise<CreatedWorkspace> {
  const workspace = await createWorkspace(api, owner, fields);
  for (const [user, role] of members) await addMember(api, workspace.id, owner, user, role);
  return workspace;
}

export interface DocumentFields {
  /** Without it, the document goes into a new workspace of its author's. */
  workspaceId?: string;
  parentId?: string | null;
  title?: string;
  /** BlockNote blocks (see paragraph), or the same as a JSON string. */
  content?: unknown;
  icon?: string | null;
  coverImageUrl?: string | null;
}

/** The DocumentResponse the API answered (its other fields untyped). */
export interface CreatedDocument {
  id: string;
  workspaceId: string;
  parentId: string | null;
  title: string;
  content: string;
  updatedAt: string;
  [field: string]: any;
}

/** A document created by `as` (EDITOR or above in its workspace). */
export async function createDocument(
  api: TestApi,
  as: SignedInUser,
  fields: DocumentFields = {},
): Promise<CreatedDocument> {
  const workspaceId = fields.workspaceId ?? (await createWorkspace(api, as)).id;
  const res = await api.request('POST', '/api/v1/documents', { token: as.token, body: { ...fields, workspaceId } });
  return expectStatus(res, 201, `create document as ${as.email}`).body.data;
}

/** A BlockNote paragraph block holding plain text. */
export function paragraph(text: string) {
  return { type: 'paragraph', props: {}, content: [{ type: 'text', text, styles: {} }], children: [] };
}

/** A paragraph block with an id of the caller's choosing (as BlockNote stores them): diffs and merges match blocks by id. */
export function paragraphWithId(id: string, text: string, children: unknown[] = []) {
  return { id, ...paragraph(text), children };
}

/** An envelope as a service's outbox holds it. */
export interface OutboxEvent {
  id: string;
  type: string;
  actorId: string | null;
  workspaceId: string | null;
  occurredAt: string;
  data: any;
}

/** The events a service wrote to its outbox (`pool` on its database), oldest first; only `type` if given. */
export async function readOutbox(pool: DatabasePool, type?: string): Promise<OutboxEvent[]> {
  const rows = await pool.anyFirst(sql.type(z.object({ envelope: z.any() }))`
    SELECT envelope FROM event_outbox ${type ? sql.fragment`WHERE type = ${type}` : sql.fragment``} ORDER BY seq`);
  return rows as OutboxEvent[];
}

/** The slonik methods that each send one statement. */
const STATEMENT_METHODS = new Set([
  'any',
  'anyFirst',
  'exists',
  'many',
  'manyFirst',
  'maybeOne',
  'maybeOneFirst',
  'one',
  'oneFirst',
  'query',
]);

/**
 * A pool or transaction whose statements are counted (a `transaction` counts as one more), for
 * tests that pin how many queries an operation costs.
 */
export function countingStatements<T extends object>(db: T): { db: T; count: () => number; reset: () => void } {
  let n = 0;
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (typeof prop === 'string' && (STATEMENT_METHODS.has(prop) || prop === 'transaction')) {
        return (...args: unknown[]) => {
          n++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  return {
    db: proxy,
    count: () => n,
    reset: () => {
      n = 0;
    },
  };
}
