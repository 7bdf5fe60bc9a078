import { MultipartBody, type ServiceClient } from '@wiki/service-client';

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
  /** The idp uids of everyone who edited since the last save (at most 50): the revision's authors. */
  editorIdpUids?: string[];
}

const TIMEOUT_MS = 10_000;
/** The largest stored state read back: what the document service takes (MAX_COLLAB_STATE_BYTES). */
const STATE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Everything the collaboration server asks of the rest of the system, through the gateway
 * (ARCHITECTURE 1) with the internal key: the user's token is verified by the gateway's own
 * verifier (POST /internal/collab/identity); documents are read and stored through the internal
 * API (spec 4.10). The calls go through the service client (peer `gateway`), which reads the
 * gateway URL on every call (tests start the gateway after this service) and turns a gateway that
 * cannot be reached, a time-out or a 5xx into a 503 it logs.
 */
export class DocumentsApi {
  constructor(private readonly client: ServiceClient) {}

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
    const user = await this.client.post<CollabUser>(
      'gateway',
      '/api/v1/internal/collab/identity',
      clientAddress ? { token, clientAddress, upgradeTicket } : { token },
      {
        timeoutMs: TIMEOUT_MS,
        refusal: (status) =>
          status === 401 || status === 400 || status === 429
            ? new Refused(status === 429 ? 'rate-limited' : 'unauthorized')
            : undefined,
      },
    );
    if (!user) throw new Error('POST /internal/collab/identity answered 404');
    return { id: user.id, name: user.name, email: user.email };
  }

  async permission(documentId: string, userId: string): Promise<Permission> {
    const permission = await this.client.get<Permission>(
      'gateway',
      `/api/v1/internal/documents/${documentId}/permission?userId=${encodeURIComponent(userId)}`,
      {
        timeoutMs: TIMEOUT_MS,
        refusal: (status) =>
          status === 403 || status === 400 ? new Refused(status === 403 ? 'forbidden' : 'not-found') : undefined,
      },
    );
    if (!permission) throw new Refused('not-found');
    return permission;
  }

  /** The stored state (null when none or stale) and the content revision to save against. */
  async loadState(documentId: string): Promise<{ state: Uint8Array | null; contentRevision: number }> {
    const stored = await this.client.send(
      'gateway',
      {
        method: 'GET',
        path: `/api/v1/internal/documents/${documentId}/collab-state`,
        accept: 'application/octet-stream',
        timeoutMs: TIMEOUT_MS,
      },
      async (answer) => {
        if (answer.status === 404) return null;
        if (answer.status !== 200 && answer.status !== 204) throw new Error(`answered ${answer.status}`);
        const contentRevision = Number(answer.headers['x-content-revision'] ?? 0);
        if (answer.status === 204) return { state: null, contentRevision };
        return { state: await answer.bytes(STATE_MAX_BYTES), contentRevision };
      },
    );
    if (!stored) throw new Refused('not-found');
    return stored;
  }

  async loadContent(documentId: string): Promise<{ content: string; contentRevision: number }> {
    const content = await this.client.get<{ content: string; contentRevision: number }>(
      'gateway',
      `/api/v1/internal/documents/${documentId}/content`,
      { timeoutMs: TIMEOUT_MS },
    );
    if (!content) throw new Refused('not-found');
    return content;
  }

  /** Stores the state; SaveConflict on a 409, Refused('not-found') when the document is gone. */
  async save(documentId: string, save: CollabSave): Promise<void> {
    const form = new MultipartBody();
    form.append('collabState', new Blob([save.state], { type: 'application/octet-stream' }), 'state.bin');
    form.append('contentRevision', String(save.contentRevision));
    if (save.jsonContent !== undefined) form.append('jsonContent', save.jsonContent);
    if (save.plainText !== undefined) form.append('plainText', save.plainText);
    if (save.idpUid !== undefined) form.append('idpUid', save.idpUid);
    if (save.editorIdpUids !== undefined && save.editorIdpUids.length > 0) {
      form.append('editorIdpUids', JSON.stringify(save.editorIdpUids));
    }
    const status = await this.client.send(
      'gateway',
      {
        method: 'POST',
        path: `/api/v1/internal/documents/${documentId}/collab-state`,
        body: form,
        timeoutMs: TIMEOUT_MS,
      },
      async (answer) => {
        if (answer.status !== 200 && answer.status !== 409 && answer.status !== 404) {
          throw new Error(`answered ${answer.status}`);
        }
        return answer.status;
      },
    );
    if (status === 409) throw new SaveConflict();
    if (status === 404) throw new Refused('not-found');
  }
}
