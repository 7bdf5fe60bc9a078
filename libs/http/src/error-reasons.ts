import type { ErrorCode } from './error-codes.js';

/**
 * Domain reasons: why a request was refused where the code alone does not say (a 409 because the
 * document is archived, not because of a clash of values). An answer carries one in
 * `error.reason` next to its code, which stays the one ARCHITECTURE 5.1 pins; clients branch on
 * the reason, the message is for people and may change. Each reason belongs to one code.
 */
export const ERROR_REASONS = {
  DOCUMENT_ARCHIVED: { code: 'CONFLICT', description: 'The document is archived; restore it first' },
  DOCUMENT_ID_TAKEN: {
    code: 'CONFLICT',
    description: 'An id the import chose belongs to a document it did not make (another workspace, another import)',
  },
  CONTENT_CHANGED: {
    code: 'CONFLICT',
    description: 'Another writer changed the content since the state the request builds on was loaded',
  },
  REVISION_CURRENT: {
    code: 'CONFLICT',
    description: 'The revision holds what the document shows now; change the document before deleting it',
  },
  THREAD_ALREADY_RESOLVED: { code: 'CONFLICT', description: 'The comment thread is already resolved' },
  THREAD_ALREADY_OPEN: { code: 'CONFLICT', description: 'The comment thread is already open' },
  OWNER_MUST_TRANSFER: {
    code: 'CONFLICT',
    description: 'The workspace owner cannot leave or be removed; ownership must be transferred first',
  },
  ALREADY_MEMBER: { code: 'CONFLICT', description: 'The person is already a member of the workspace' },
  INVITATION_NOT_PENDING: {
    code: 'CONFLICT',
    description: 'The invitation is not in a state this action applies to (its status is in the message)',
  },
  INVITATION_EXPIRED: { code: 'GONE', description: 'The invitation has expired' },
  INVITATION_CLOSED: { code: 'GONE', description: 'The invitation was accepted, declined or cancelled' },
  INVITATION_REVOKED: {
    code: 'GONE',
    description: 'Whoever sent the invitation can no longer invite with its role',
  },
  EMAIL_TAKEN: { code: 'CONFLICT', description: 'Another account already uses this email address' },
  EMAIL_UNVERIFIED: {
    code: 'CONFLICT',
    description: 'The email address belongs to an account, and the identity provider does not vouch for it',
  },
  USER_CHANGED: { code: 'CONFLICT', description: 'The user changed during the sign-in; try again' },
  MCP_KEY_LIMIT: { code: 'CONFLICT', description: 'The user holds the most MCP keys allowed; delete one first' },
  WEBHOOK_LIMIT_REACHED: {
    code: 'CONFLICT',
    description: 'The workspace has the most webhooks allowed; delete one first',
  },
  DELIVERY_PENDING: {
    code: 'CONFLICT',
    description: 'The webhook delivery is still pending; redeliver it once it has been delivered or failed',
  },
  EXPORTS_BUSY: {
    code: 'RATE_LIMITED',
    description: 'Too many of the caller’s exports are running; retry when one has finished',
  },
  JOB_NOT_FINISHED: {
    code: 'CONFLICT',
    description: 'The job has not finished (or failed): it has no file to download',
  },
  EXPORT_EXPIRED: { code: 'GONE', description: 'The exported file expired and was removed; export again' },
} as const satisfies Record<string, { code: ErrorCode; description: string }>;

export type ErrorReason = keyof typeof ERROR_REASONS;

/** The code a reason is answered with. */
export type CodeOfReason<R extends ErrorReason> = (typeof ERROR_REASONS)[R]['code'];
