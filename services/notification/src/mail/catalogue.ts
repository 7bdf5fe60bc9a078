import type { NotificationType } from '@wiki/events';

/** Names a message shows, as the notification stored them (empty when unknown). */
export interface MailNames {
  actor: string;
  document: string;
  workspace: string;
  role?: string;
}

/** The wording of e-mail in one language. English is complete and the fallback of every locale. */
export interface Catalogue {
  lang: string;
  notification(type: NotificationType, names: MailNames): { subject: string; line: string };
  open: string;
  digestSubject(count: number): string;
  digestIntro(hours: number): string;
  invitationSubject(inviter: string, workspace: string): string;
  invitationLine(inviter: string, workspace: string, role: string): string;
  invitationNote: string;
  accept: string;
  expires(date: Date): string;
  unsubscribe: string;
  unsubscribeDigest: string;
}

const ROLES_EN: Record<string, string> = {
  OWNER: 'an owner',
  ADMIN: 'an admin',
  EDITOR: 'an editor',
  COMMENTER: 'a commenter',
  VIEWER: 'a viewer',
};

const en: Catalogue = {
  lang: 'en',
  notification(type, n) {
    const actor = n.actor || 'Someone';
    const doc = `“${n.document || 'a document'}”`;
    const ws = `“${n.workspace || 'a workspace'}”`;
    const role = ROLES_EN[n.role ?? ''] ?? 'a member';
    switch (type) {
      case 'COMMENT_MENTION':
        return { subject: `${actor} mentioned you on ${doc}`, line: `${actor} mentioned you in a comment on ${doc}.` };
      case 'COMMENT_REPLY':
        return { subject: `New reply on ${doc}`, line: `${actor} replied in a thread on ${doc}.` };
      case 'THREAD_RESOLVED':
        return { subject: `Thread resolved on ${doc}`, line: `${actor} resolved a thread on ${doc}.` };
      case 'DOCUMENT_UPDATED':
        return { subject: `${doc} was edited`, line: `${actor} edited ${doc}, which you watch.` };
      case 'WORKSPACE_INVITATION':
        return { subject: `Invitation to ${ws}`, line: `${actor} invited you to join ${ws} as ${role}.` };
      case 'INVITATION_ACCEPTED':
        return { subject: `${actor} joined ${ws}`, line: `${actor} accepted your invitation to ${ws}.` };
      case 'MEMBER_ROLE_CHANGED':
        return { subject: `Your role in ${ws} changed`, line: `Your role in ${ws} is now ${role}.` };
      case 'MEMBER_REMOVED':
        return { subject: `You were removed from ${ws}`, line: `You were removed from ${ws}.` };
      case 'WEBHOOK_DISABLED':
        return {
          subject: `A webhook of ${ws} was disabled`,
          line: `A webhook of ${ws} failed for three days and was disabled.`,
        };
      case 'JOB_FINISHED':
        return { subject: 'An import or export finished', line: 'An import or export you started has finished.' };
    }
  },
  open: 'Open in the wiki',
  digestSubject: (count) => (count === 1 ? '1 update from your wiki' : `${count} updates from your wiki`),
  digestIntro: (hours) => `What happened in your wiki (you get this summary at most once every ${hours} h):`,
  invitationSubject: (inviter, workspace) => `${inviter || 'Someone'} invited you to “${workspace}”`,
  invitationLine: (inviter, workspace, role) =>
    `${inviter || 'Someone'} invited you to join “${workspace}” as ${ROLES_EN[role] ?? 'a member'}.`,
  invitationNote: 'Their note:',
  accept: 'Accept the invitation',
  expires: (date) => `The invitation expires on ${date.toISOString().slice(0, 10)}.`,
  unsubscribe: 'Stop e-mails like this one',
  unsubscribeDigest: 'Stop all e-mails from this wiki',
};

const ROLES_DE: Record<string, string> = {
  OWNER: 'Eigentümer',
  ADMIN: 'Administrator',
  EDITOR: 'Bearbeiter',
  COMMENTER: 'Kommentator',
  VIEWER: 'Leser',
};

const de: Catalogue = {
  lang: 'de',
  notification(type, n) {
    const actor = n.actor || 'Jemand';
    const doc = `„${n.document || 'ein Dokument'}“`;
    const ws = `„${n.workspace || 'ein Arbeitsbereich'}“`;
    const role = ROLES_DE[n.role ?? ''] ?? 'Mitglied';
    switch (type) {
      case 'COMMENT_MENTION':
        return {
          subject: `${actor} hat Sie in ${doc} erwähnt`,
          line: `${actor} hat Sie in einem Kommentar zu ${doc} erwähnt.`,
        };
      case 'COMMENT_REPLY':
        return { subject: `Neue Antwort zu ${doc}`, line: `${actor} hat in einer Diskussion zu ${doc} geantwortet.` };
      case 'THREAD_RESOLVED':
        return {
          subject: `Diskussion zu ${doc} erledigt`,
          line: `${actor} hat eine Diskussion zu ${doc} als erledigt markiert.`,
        };
      case 'DOCUMENT_UPDATED':
        return { subject: `${doc} wurde bearbeitet`, line: `${actor} hat ${doc} bearbeitet, dem Sie folgen.` };
      case 'WORKSPACE_INVITATION':
        return { subject: `Einladung zu ${ws}`, line: `${actor} hat Sie als ${role} zu ${ws} eingeladen.` };
      case 'INVITATION_ACCEPTED':
        return { subject: `${actor} ist ${ws} beigetreten`, line: `${actor} hat Ihre Einladung zu ${ws} angenommen.` };
      case 'MEMBER_ROLE_CHANGED':
        return { subject: `Ihre Rolle in ${ws} wurde geändert`, line: `Ihre Rolle in ${ws} ist jetzt ${role}.` };
      case 'MEMBER_REMOVED':
        return { subject: `Sie wurden aus ${ws} entfernt`, line: `Sie wurden aus ${ws} entfernt.` };
      case 'WEBHOOK_DISABLED':
        return {
          subject: `Ein Webhook von ${ws} wurde deaktiviert`,
          line: `Ein Webhook von ${ws} ist drei Tage lang fehlgeschlagen und wurde deaktiviert.`,
        };
      case 'JOB_FINISHED':
        return {
          subject: 'Ein Import oder Export ist fertig',
          line: 'Ein Import oder Export, den Sie gestartet haben, ist fertig.',
        };
    }
  },
  open: 'Im Wiki öffnen',
  digestSubject: (count) => (count === 1 ? '1 Neuigkeit aus Ihrem Wiki' : `${count} Neuigkeiten aus Ihrem Wiki`),
  digestIntro: (hours) =>
    `Das ist in Ihrem Wiki passiert (diese Zusammenfassung erhalten Sie höchstens alle ${hours} Stunden):`,
  invitationSubject: (inviter, workspace) => `${inviter || 'Jemand'} hat Sie zu „${workspace}“ eingeladen`,
  invitationLine: (inviter, workspace, role) =>
    `${inviter || 'Jemand'} hat Sie als ${ROLES_DE[role] ?? 'Mitglied'} zu „${workspace}“ eingeladen.`,
  invitationNote: 'Nachricht:',
  accept: 'Einladung annehmen',
  expires: (date) => `Die Einladung läuft am ${date.toISOString().slice(0, 10)} ab.`,
  unsubscribe: 'Solche E-Mails abbestellen',
  unsubscribeDigest: 'Alle E-Mails dieses Wikis abbestellen',
};

const CATALOGUES: Record<string, Catalogue> = { en, de };

/** The catalogue of a locale by its language (`de-AT` → German); English for anything else. */
export function catalogueFor(locale: string | null | undefined): Catalogue {
  const language = (locale ?? '').toLowerCase().split(/[-_]/)[0] ?? '';
  return CATALOGUES[language] ?? en;
}
