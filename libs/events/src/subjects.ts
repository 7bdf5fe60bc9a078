/** `<prefix>.<type>`: the subject an event of `type` is published on. */
export function subjectFor(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}

/** `<prefix>.dlq.<consumer>`: where a consumer's dead letters go. */
export function dlqSubject(prefix: string, consumer: string): string {
  return `${prefix}.dlq.${consumer}`;
}

/**
 * `<prefix>-live.<topic>`: plain NATS messages between replicas that nobody needs to replay (e.g.
 * "this workspace's tree changed"). Outside `<prefix>.>`, so the event stream does not keep them.
 */
export function liveSubject(prefix: string, topic: string): string {
  return `${prefix}-live.${topic}`;
}

/** Live topic: a workspace's open comment thread counts changed and are committed (data `{ workspaceId }`). */
export const THREAD_COUNTS_TOPIC = 'thread-counts';

export function isDlqSubject(prefix: string, subject: string): boolean {
  return subject.startsWith(`${prefix}.dlq.`);
}

/** The event type carried by a subject of this prefix, or null when the subject is not under it. */
export function typeOfSubject(prefix: string, subject: string): string | null {
  return subject.startsWith(`${prefix}.`) ? subject.slice(prefix.length + 1) : null;
}

/**
 * NATS subject matching applied to event types: `*` matches one token, a final `>` one or more.
 * `document.*` matches `document.created`, not `document.tree.moved`; `document.>` matches both.
 */
export function matchesType(pattern: string, type: string): boolean {
  const want = pattern.split('.');
  const got = type.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return i === want.length - 1 && got.length > i;
    if (i >= got.length) return false;
    if (want[i] !== '*' && want[i] !== got[i]) return false;
  }
  return want.length === got.length;
}

export function matchesAnyType(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => matchesType(p, type));
}

const PATTERN_TOKEN = /^([a-z0-9_-]+|\*|>)$/;

export function assertTypePattern(pattern: string): void {
  const tokens = pattern.split('.');
  const ok = tokens.every((t, i) => PATTERN_TOKEN.test(t) && (t !== '>' || i === tokens.length - 1));
  if (!ok) throw new Error(`Invalid event type pattern "${pattern}"`);
}

/**
 * The one filter subject the durable consumer gets. NATS 2.9 allows a single filter per consumer,
 * so several patterns share `<prefix>.>` and are filtered in code (see matchesAnyType).
 */
export function filterSubjectFor(prefix: string, patterns: readonly string[]): string {
  if (patterns.length === 0) throw new Error('A consumer needs at least one event type');
  patterns.forEach(assertTypePattern);
  if (patterns.length === 1) return subjectFor(prefix, patterns[0]);
  // Several patterns: filter on the tokens they share (`document.created` + `document.deleted`
  // → `<prefix>.document.>`), so the consumer is not sent every event of the system.
  const split = patterns.map((p) => p.split('.'));
  const common: string[] = [];
  for (
    let i = 0;
    split.every(
      (tokens) => i < tokens.length - 1 && tokens[i] === split[0][i] && tokens[i] !== '*' && tokens[i] !== '>',
    );
    i++
  ) {
    common.push(split[0][i]);
  }
  return common.length ? `${prefix}.${common.join('.')}.>` : `${prefix}.>`;
}

/**
 * Whether a message on `subject` is for a consumer of these type patterns. Dead letters never are,
 * even when the server-side filter (`<prefix>.>` for several patterns) lets them through.
 */
export function wantsSubject(prefix: string, patterns: readonly string[], subject: string): boolean {
  const type = typeOfSubject(prefix, subject);
  return type !== null && !isDlqSubject(prefix, subject) && matchesAnyType(patterns, type);
}
