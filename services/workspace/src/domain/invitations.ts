import { randomBytes } from 'node:crypto';
import type { Role } from '@wiki/auth';
import { forbidden, refusal } from '@wiki/http';
import { mayInvite } from './roles.js';

export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

/** 32 random bytes, base64url: unguessable and safe in a URL path. */
export function newInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

export function expiryFrom(now: Date, ttlDays: number): Date {
  return new Date(now.getTime() + ttlDays * DAY_MS);
}

/** Emails are compared case-insensitively and without surrounding spaces everywhere. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const sameEmail = (a: string, b: string): boolean => normalizeEmail(a) === normalizeEmail(b);

export function inviteLink(inviteUrl: string, token: string): string {
  return `${inviteUrl.replace(/\/+$/, '')}/invite/${token}`;
}

interface InvitationState {
  status: InvitationStatus;
  expiresAt: string;
}

/** The status as the client should see it: a PENDING invitation past its expiry is EXPIRED. */
export function effectiveStatus(invitation: InvitationState, now: Date): InvitationStatus {
  if (invitation.status === 'PENDING' && Date.parse(invitation.expiresAt) <= now.getTime()) return 'EXPIRED';
  return invitation.status;
}

/** An invitation can be looked at, accepted or declined only while it is open (else 410). */
export function assertOpen(invitation: InvitationState, now: Date): void {
  const status = effectiveStatus(invitation, now);
  if (status === 'EXPIRED') throw refusal('INVITATION_EXPIRED', 'This invitation has expired');
  if (status !== 'PENDING')
    throw refusal('INVITATION_CLOSED', `This invitation is no longer valid (${status.toLowerCase()})`);
}

/** Accept and decline: only the invited address may answer, and only while the invitation is open. */
export function assertCanRespond(
  invitation: InvitationState & { email: string },
  userEmail: string | undefined,
  now: Date,
): void {
  assertOpen(invitation, now);
  if (!userEmail || !sameEmail(invitation.email, userEmail)) {
    throw forbidden('This invitation was sent to another email address');
  }
}

/**
 * ARCHITECTURE 5.13: an email matches invitations only while the identity provider vouches for it.
 * `stored` is the user record's flag (set with its email at the last sign-in); `claimed` the
 * identity token's, which may only take trust away (an identity minted before a sign-in changed it).
 */
export function hasVerifiedEmail(stored: boolean, claimed: boolean | undefined): boolean {
  return stored && claimed !== false;
}

/** Accept and decline with an unverified email: 403 whatever the token, so nothing is learnt from it. */
export function assertVerifiedEmail(verified: boolean): void {
  if (!verified)
    throw forbidden(
      'Your email address is not verified by your identity provider; verify it and sign in again to answer invitations',
    );
}

/**
 * An invitation carries the power of whoever sent it, only while they still hold it: accepting
 * one whose inviter left, was removed or can no longer invite with its role is 410 (such
 * invitations are cancelled when that happens; this catches any left from before that rule).
 */
export function assertInviterStillMayInvite(inviterRole: Role | null, invitedRole: Role): void {
  if (!inviterRole || !mayInvite(inviterRole, invitedRole))
    throw refusal(
      'INVITATION_REVOKED',
      'This invitation is no longer valid: whoever sent it can no longer invite with this role',
    );
}

/** Cancel works on open invitations; resend also revives an expired one (same token, new expiry). */
export function canCancel(status: InvitationStatus): boolean {
  return status === 'PENDING';
}

export function canResend(status: InvitationStatus): boolean {
  return status === 'PENDING' || status === 'EXPIRED';
}
