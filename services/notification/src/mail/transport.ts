import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@wiki/events';
import nodemailer from 'nodemailer';
import type { MailSettings } from '../settings.js';
import type { Mail } from './compose.js';

/** Messages one replica's worker sends at once, and so the SMTP connections its pool keeps open. */
export const MAIL_CONCURRENCY = 8;

/** Where messages go: an SMTP server, or .eml files in a folder (the local default). */
export interface MailTransport {
  /** Sends one message; `id` (what is sent, e.g. the outbox key) names its file and its Message-ID. */
  send(mail: Mail, id: string): Promise<void>;
  close(): void;
}

/** A name that is safe as a file name and in a Message-ID: letters, digits and dashes. */
const safe = (id: string) => id.replace(/[^A-Za-z0-9-]/g, '-');

export function createMailTransport(settings: MailSettings, logger: Pick<Logger, 'info'>): MailTransport {
  const domain = new URL(settings.publicUrl).hostname || 'localhost';
  const envelope = (mail: Mail, id: string) => ({
    from: settings.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: mail.headers,
    // The same for every try: a receiver can tell a repeat from a new message.
    messageId: `<${safe(id)}@${domain}>`,
  });

  if (settings.smtpUrl) {
    // The URL carries the credentials: it is handed to nodemailer and never logged.
    // Pooled: the worker's concurrent jobs reuse open connections instead of a TCP and SMTP
    // handshake (and a login) per message; values the URL sets win over these.
    const smtp = nodemailer.createTransport({
      url: settings.smtpUrl,
      pool: true,
      maxConnections: MAIL_CONCURRENCY,
      maxMessages: 100,
    });
    return {
      async send(mail, id) {
        await smtp.sendMail(envelope(mail, id));
      },
      close: () => smtp.close(),
    };
  }

  const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail, id) {
      const info = await files.sendMail(envelope(mail, id));
      await mkdir(settings.dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${safe(id)}.eml`;
      await writeFile(join(settings.dir, name), info.message as Buffer);
      // Who and what, never the body (it holds links that act for the recipient).
      logger.info({ to: mail.to, subject: mail.subject, file: name }, 'e-mail written to the mail folder');
    },
    close: () => files.close(),
  };
}
