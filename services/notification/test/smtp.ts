import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps every message it accepts, parsed. */
export interface TestSmtp {
  port: number;
  /** SMTP_URL for it, with the credentials it checks. */
  url: string;
  messages: ParsedMail[];
  /** Who signed in for each accepted message. */
  logins: string[];
  /** Messages to `address` so far. */
  to(address: string): ParsedMail[];
  close(): Promise<void>;
}

const USER = 'wiki-mailer';
const PASSWORD = 's3cret-smtp-pass';

/** A loopback port free now (for a server that starts later, as after an outage). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export const smtpUrlFor = (port: number) => `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`;

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback, login required (the URL's credentials must reach it).
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username !== USER || auth.password !== PASSWORD) return callback(new Error('bad credentials'));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          messages.push(parsed);
          logins.push(String(session.user));
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  const addressesOf = (m: ParsedMail) =>
    (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
  return {
    port: bound,
    url: smtpUrlFor(bound),
    messages,
    logins,
    to: (address) => messages.filter((m) => addressesOf(m).includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header's value as sent (unfolded), or undefined: mailparser reshapes List-* headers, the raw line does not lie. */
export function rawHeader(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line
    ?.slice(line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

/** The token of a message's List-Unsubscribe URL (`<base>/api/v1/email/unsubscribe?token=...`). */
export function unsubscribeTokenOf(mail: ParsedMail): { url: string; token: string } {
  const header = rawHeader(mail, 'list-unsubscribe');
  const url = /^<([^>]+)>$/.exec(header ?? '')?.[1];
  if (!url) throw new Error(`no List-Unsubscribe URL in ${header}`);
  return { url, token: new URL(url).searchParams.get('token') ?? '' };
}
