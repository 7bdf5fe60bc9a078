import { mintServiceToken, type Role } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { type Stack, startStack } from '@wiki/testing';
import { startService as startGateway } from '../../../gateway/src/service.js';
import { startService as startWorkspace } from '../../workspace/src/service.js';
import { startService as startDocument } from '../src/service.js';

/** The real gateway, workspace and document services, in this process, on throw-away databases. */

export interface TestUser {
  id: string;
  email: string;
  name: string;
  token: string;
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

export { ROLES, type Role } from '@wiki/auth';

export interface DocStack {
  stack: Stack;
  /** A pool on the document service's database (to inspect rows and the outbox). */
  pool: DatabasePool;
  user(email: string, name?: string): Promise<TestUser>;
  /** A workspace owned by `owner`. */
  workspace(owner: TestUser, name?: string): Promise<string>;
  /** Invites `email` with `role` into the workspace as its owner and accepts as the invitee. */
  join(
    workspaceId: string,
    owner: TestUser,
    email: string,
    role: Exclude<Role, 'OWNER'>,
    name?: string,
  ): Promise<TestUser>;
  call<T = any>(method: string, path: string, as?: TestUser | null, body?: unknown): Promise<Reply<T>>;
  /** Creates a document (expects 201) and returns its DocumentResponse. */
  create(as: TestUser, body: Record<string, unknown>): Promise<any>;
  /** A call with the internal API key through the gateway. */
  internal(
    method: string,
    path: string,
    init?: { body?: FormData | string | Uint8Array; headers?: Record<string, string> },
  ): Promise<Response>;
  /** A call straight to the document service (bypassing the gateway) with a service token or none. */
  direct(method: string, path: string, identity?: string | null): Promise<Reply>;
  serviceToken(service?: string): Promise<string>;
  outbox(
    type?: string,
  ): Promise<Array<{ id: string; type: string; actorId: string | null; workspaceId: string | null; data: any }>>;
  stop(): Promise<void>;
}

export async function startDocStack(env: Record<string, string> = {}): Promise<DocStack> {
  const stack = await startStack({
    gateway: startGateway,
    services: { workspace: startWorkspace, document: startDocument },
    env,
  });
  const pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 3 });

  const call = async <T>(method: string, path: string, as?: TestUser | null, body?: unknown): Promise<Reply<T>> => {
    const res = await stack.request<T>(method, path, { token: as?.token, body });
    return { status: res.status, body: res.body, headers: res.headers };
  };

  const api: DocStack = {
    stack,
    pool,
    async user(email, name) {
      const signed = await stack.signIn(email, name);
      return { id: signed.id, email, name: signed.name, token: signed.token };
    },
    async workspace(owner, name = 'Team') {
      const res = await call<any>('POST', '/api/v1/workspaces', owner, { name });
      if (res.status !== 201) throw new Error(`create workspace: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.id;
    },
    async join(workspaceId, owner, email, role, name) {
      const invitee = await api.user(email, name);
      const inv = await call<any>('POST', `/api/v1/workspaces/${workspaceId}/members/invite`, owner, { email, role });
      if (inv.status !== 201) throw new Error(`invite ${email}: ${inv.status} ${JSON.stringify(inv.body)}`);
      const token = String(inv.body.data.inviteLink).split('/').pop();
      const accepted = await call<any>('POST', `/api/v1/invitations/${token}/accept`, invitee);
      if (accepted.status !== 200)
        throw new Error(`accept ${email}: ${accepted.status} ${JSON.stringify(accepted.body)}`);
      return invitee;
    },
    call,
    async create(as, body) {
      const res = await call<any>('POST', '/api/v1/documents', as, body);
      if (res.status !== 201) throw new Error(`create document: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    },
    internal(method, path, init = {}) {
      return fetch(`${stack.gatewayUrl}${path}`, {
        method,
        body: init.body,
        headers: { 'x-internal-api-key': stack.config.internalApiKey, ...init.headers },
      });
    },
    async direct(method, path, identity) {
      const headers: Record<string, string> = identity ? { 'x-wiki-identity': identity } : {};
      const res = await fetch(`${stack.serviceUrls.document}${path}`, { method, headers });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: Object.fromEntries(res.headers) };
    },
    serviceToken: (service = 'comment') => mintServiceToken(stack.config.internalTokenSecret, service, 3600),
    async outbox(type) {
      const rows = await pool.anyFirst(sql.type(z.object({ envelope: z.any() }))`
        SELECT envelope FROM event_outbox ${type ? sql.fragment`WHERE type = ${type}` : sql.fragment``} ORDER BY seq`);
      return rows as any;
    },
    async stop() {
      await pool.end();
      await stack.stop();
    },
  };
  return api;
}

/** A BlockNote paragraph with plain text. */
export const para = (text: string) => ({
  type: 'paragraph',
  props: {},
  content: [{ type: 'text', text, styles: {} }],
  children: [],
});

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
