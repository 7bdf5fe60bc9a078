// `npm run dlq:replay`: lists the events that consumers gave up on (`<prefix>.dlq.<consumer>` in
// the event stream, with the Wiki-Dlq-* headers the consumer set) and, with --replay, publishes
// each again on the subject it came from, then deletes it from the dead-letter subject.
//
//   npm run dlq:replay                                   # list every dead letter
//   npm run dlq:replay -- --consumer search-documents    # one consumer's
//   npm run dlq:replay -- --consumer search-documents --replay [--seq 1234]
//
// A replayed event reaches every consumer of its subject again; those that applied it the first
// time find its id among their consumed events (kept 8 days, longer than the stream's 7) and skip
// it, so only the consumer that failed applies it. It gets a message id of its own, as the stream
// would drop the original id as a duplicate inside its 2-minute window. If it fails again it is
// dead-lettered again with a new sequence.
import { pathToFileURL } from 'node:url';
import { JetStreamApiCodes, JetStreamApiError, type StreamInfo } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { loadConfig } from '@wiki/config';
import { connectEventBus, DLQ_HEADERS, dlqSubject, type EventBus } from '@wiki/events';

export interface DeadLetter {
  /** Sequence of the dead letter in the stream (what --seq names and what is deleted). */
  seq: number;
  consumer: string;
  /** The subject the event was published on, where a replay sends it. */
  subject: string;
  error: string;
  deliveries: string;
  eventId: string | null;
  type: string | null;
  data: Uint8Array;
}

/** Reads the dead letters of one consumer (or of all) without consuming them. */
export async function listDeadLetters(bus: EventBus, consumer?: string): Promise<DeadLetter[]> {
  const subject = dlqSubject(bus.prefix, consumer ?? '>');
  let info: StreamInfo;
  try {
    info = await bus.jsm.streams.info(bus.stream, { subjects_filter: subject });
  } catch (error) {
    // No stream yet (no part has started against this NATS): nothing was dead-lettered either.
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return [];
    throw error;
  }
  const total = Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  if (total === 0) return [];
  // An ordered consumer is ephemeral and leaves no state behind on the server.
  const reader = await bus.js.consumers.get(bus.stream, { filter_subjects: subject });
  const found: DeadLetter[] = [];
  const messages = await reader.consume();
  for await (const m of messages) {
    let envelope: { id?: unknown; type?: unknown } = {};
    try {
      envelope = JSON.parse(new TextDecoder().decode(m.data));
    } catch {
      // An unreadable event is dead-lettered as it came; it is still listed and replayable.
    }
    found.push({
      seq: m.seq,
      consumer: m.subject.slice(`${bus.prefix}.dlq.`.length),
      subject: m.headers?.get(DLQ_HEADERS.subject) ?? '',
      error: m.headers?.get(DLQ_HEADERS.error) ?? '',
      deliveries: m.headers?.get(DLQ_HEADERS.deliveries) ?? '',
      eventId: typeof envelope.id === 'string' ? envelope.id : null,
      type: typeof envelope.type === 'string' ? envelope.type : null,
      data: m.data,
    });
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return found;
}

/** Publishes a dead letter again on its subject and removes it from the dead-letter subject. */
export async function replayDeadLetter(bus: EventBus, letter: DeadLetter): Promise<void> {
  if (!letter.subject.startsWith(`${bus.prefix}.`) || letter.subject.startsWith(`${bus.prefix}.dlq.`)) {
    throw new Error(`dead letter ${letter.seq} names no event subject (${letter.subject || 'none'})`);
  }
  const h = natsHeaders();
  h.set('Wiki-Replayed-From', String(letter.seq));
  await bus.js.publish(letter.subject, letter.data, { msgID: `replay-${bus.stream}-${letter.seq}`, headers: h });
  await bus.jsm.streams.deleteMessage(bus.stream, letter.seq);
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const value = args[i + 1];
  if (!value || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

async function main(args: string[]): Promise<number> {
  const known = new Set(['--consumer', '--seq', '--replay']);
  for (const arg of args) {
    if (arg.startsWith('--') && !known.has(arg)) throw new Error(`unknown option ${arg}`);
  }
  const consumer = option(args, '--consumer');
  if (consumer !== undefined && !/^[A-Za-z0-9_-]+$/.test(consumer)) throw new Error('--consumer: a consumer name');
  const seqText = option(args, '--seq');
  const seq = seqText === undefined ? undefined : Number(seqText);
  if (seq !== undefined && !(Number.isInteger(seq) && seq > 0)) throw new Error('--seq: a stream sequence');
  const replay = args.includes('--replay');
  if (replay && !consumer) throw new Error('--replay needs --consumer (replay one consumer at a time)');

  const config = loadConfig();
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const bus = await connectEventBus({
    natsUrl: config.natsUrl,
    stream: config.eventsStream,
    prefix: config.eventsPrefix,
    name: 'dlq-replay',
    logger,
  });
  try {
    const letters = (await listDeadLetters(bus, consumer)).filter((l) => seq === undefined || l.seq === seq);
    if (seq !== undefined && letters.length === 0) throw new Error(`no dead letter at sequence ${seq}`);
    for (const l of letters) {
      process.stdout.write(
        `${l.seq}\t${l.consumer}\t${l.type ?? '?'}\t${l.eventId ?? '?'}\tdeliveries=${l.deliveries}\t${l.error}\n`,
      );
      if (replay) {
        await replayDeadLetter(bus, l);
        process.stdout.write(`  replayed on ${l.subject}\n`);
      }
    }
    process.stderr.write(`${letters.length} dead letter(s)${replay ? ' replayed' : ''}\n`);
    return 0;
  } finally {
    await bus.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`dlq:replay: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
