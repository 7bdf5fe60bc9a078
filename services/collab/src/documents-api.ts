import type { Config } from '@wiki/config';

/** The signed-in user behind a provider token, as the gateway resolved it. */
export interface CollabUser {
  id: string;
  name: string;
  email: string | null;
}

export interface Permission {
  canEdit: boolean;
  role: string;
  workspaceId: string;
}

/** A refusal the client caused (bad token, spent guessing budget, no access, unknown document): not retried. */
export class Refused extends Error {
  constructor(readonly reason: 'unauthorized' | 'rate-limited' | 'forbidden' | 'not-found') {
    super(reason);
    this.name = 'Refused';
  }
}

/** A save the document service would not take: the content moved on, or the document is read-only now. */
export class SaveConflict extends Error {
  constructor() {
    super('conflict');
    this.name = 'SaveConflict';
  }
}

export interface CollabSave {
  state: Uint8Array;
  contentRevision: number;
  jsonContent?: string;
  plainText?: string;
  idpUid?: string;
}

const TIMEOUT_MS = 10_000;

/**
 * Everything the collaboration server asks of the rest of the system, through the gateway
 * (ARCHITECTURE 1) with the internal key: the user's token is verified by the gateway's own
 * verifier (POST /internal/collab/identity); documents are read and stored through the internal
 * API (spec 4.10). The gateway URL is read on every call (tests start the gateway after this service).
 */
export class DocumentsApi {
  constructor(private readonly config: Pick<Config, 'gatewayUrl' | 'internalApiKey'>) {}

  private url(path: string): string {
    return `${this.config.gatewayUrl}/api/v1${path}`;
  }

  private internal(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(this.url(path), {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-internal-api-key': this.config.internalApiKey },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }

  private static async fail(res: Response, what: string): Promise<never> {
    await res.body?.cancel();
    throw new Error(`${what} answered ${res.status}`);
  }

  /**
   * The user the token belongs to, verified by the gateway as for a REST request;
   * Refused('unauthorized') for a token it refuses. `clientAddress` is the editor's, as the
   * gateway told it on the upgrade: the gateway counts a refused token against that address
   * and, once its budget is spent, answers 429 (Refused('rate-limited')) for a token that fails.
   * `upgradeTicket` is the gateway's ticket of an upgrade that came without a token: a valid token
   * redeems it, so that the upgrade no longer counts as a refused credential.
   */
  async verifyUser(token: string, clientAddress?: string, upgradeTicket?: string): Promise<CollabUser> {
    if (!token) throw new Refused('unauthorized');
    const res = await this.internal('/internal/collab/identity', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(clientAddress ? { token, clientAddress, upgradeTicket } : { token }),
    });
    if (res.status === 401 || res.status === 400 || res.status === 429) {
      await res.body?.cancel();
      throw new Refused(res.status === 429 ? 'rate-limited' : 'unauthorized');
    }
    if (res.status !== 200) return DocumentsApi.fail(res, 'POST /internal/collab/identity');
    const { data } = (await res.json()) as { data: { id: string; name: string; email: string | null } };
    return { id: data.id, name: data.name, email: data.email };
  }

  async permission(documentId: string, userId: string): Promise<Permission> {
    const res = await this.internal(
      `/internal/documents/${documentId}/permission?userId=${encodeURIComponent(userId)}`,
    );
    if (res.status === 403 || res.status === 404 || res.status === 400) {
      await res.body?.cancel();
      throw new Refused(res.status === 403 ? 'forbidden' : 'not-found');
    }
    if (res.status !== 200) return DocumentsApi.fail(res, 'GET permission');
    return ((await res.json()) as { data: Permission }).data;
  }

  /** The stored state (null when none or stale) and the content revision to save against. */
  async loadState(documentId: string): Promise<{ state: Uint8Array | null; contentRevision: number }> {
    const res = await this.internal(`/internal/documents/${documentId}/collab-state`);
    if (res.status === 404) {
      await res.body?.cancel();
      throw new Refused('not-found');
    }
    if (res.status !== 200 && res.status !== 204) return DocumentsApi.fail(res, 'GET collab-state');
    const contentRevision = Number(res.headers.get('x-content-revision') ?? 0);
    if (res.status === 204) return { state: null, contentRevision };
    return { state: new Uint8Array(await res.arrayBuffer()), contentRevision };
  }

  async loadContent(documentId: string): Promise<{ content: string; contentRevision: number }> {
    const res = await this.internal(`/internal/documents/${documentId}/content`);
    if (res.status === 404) {
      await res.body?.cancel();
      throw new Refused('not-found');
    }
    if (res.status !== 200) return DocumentsApi.fail(res, 'GET content');
    return ((await res.json()) as { data: { content: string; contentRevision: number } }).data;
  }

  /** Stores the state; SaveConflict on a 409, Refused('not-found') when the document is gone. */
  async save(documentId: string, save: CollabSave): Promise<void> {
    const form = new FormData();
    form.append('collabState', new Blob([save.state], { type: 'application/octet-stream' }), 'state.bin');
    form.append('contentRevision', String(save.contentRevision));
    if (save.jsonContent !== undefined) form.append('jsonContent', save.jsonContent);
    if (save.plainText !== undefined) form.append('plainText', save.plainText);
    if (save.idpUid !== undefined) form.append('idpUid', save.idpUid);
    const res = await this.internal(`/internal/documents/${documentId}/collab-state`, { method: 'POST', body: form });
    await res.body?.cancel();
    if (res.status === 200) return;
    if (res.status === 409) throw new SaveConflict();
    if (res.status === 404) throw new Refused('not-found');
    throw new Error(`POST collab-state answered ${res.status}`);
  }
}
