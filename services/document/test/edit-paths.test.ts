import { sql, z } from '@wiki/db';
import { configureEventMaxBytes, createEnvelope, EVENT_TEXT_MAX_BYTES, eventMaxBytes } from '@wiki/events';
import {
  type ApiResponse,
  createDocument,
  type OutboxEvent,
  paragraph,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { fitsUnmeasured } from '../src/commands/update-document.js';
import { type DocStack, startDocStack } from './helpers.js';

/**
 * Issue 25, point 4: a PUT's field change is one rule (db/field-edits.ts), whichever way it runs:
 * alone as its own statement (the everyday edit), or inside the PUT's transaction (with an
 * isArchived that changes nothing, or under an event cap too small to skip measuring the event).
 * Every kind of edit is made once each way on documents alike, and the answers, the rows and the
 * events must be the same. Through the real gateway, workspace and document services.
 */

type Body = Record<string, unknown>;

interface Way {
  name: string;
  /** The body sent this way, for a document archived or not. */
  body(body: Body, archived: boolean): Body;
  /** The event cap the PUT runs under (the services run in this process). */
  cap?: number;
}

/** Room for a whole text at its cap and the rest of a document.updated, but too little to skip the measure. */
const MEASURED_CAP = EVENT_TEXT_MAX_BYTES + 4096;

const WAYS: Way[] = [
  { name: 'alone', body: (body) => body },
  { name: 'in the transaction (isArchived unchanged)', body: (body, archived) => ({ ...body, isArchived: archived }) },
  { name: 'in the transaction (event measured)', body: (body) => body, cap: MEASURED_CAP },
];

const LONG_TEXT = 'long words '.repeat(10_000); // 110,000 characters: its event carries it cut

interface Kind {
  name: string;
  body: Body;
  /** What happens to the document before the PUT. */
  before?: 'archive' | 'delete' | 'never-created';
}

const KINDS: Kind[] = [
  { name: 'title', body: { title: 'Renamed' } },
  { name: 'content', body: { content: [paragraph('new words here')] } },
  { name: 'content cleared', body: { content: null } },
  { name: 'content whose text is over the event cap', body: { content: [paragraph(LONG_TEXT)] } },
  { name: 'icon', body: { icon: '🧪' } },
  { name: 'icon cleared', body: { icon: null } },
  { name: 'cover', body: { coverImageUrl: 'https://img.test/2.png' } },
  {
    name: 'several fields',
    body: { title: 'All of it', content: [paragraph('every field')], icon: '🎯', coverImageUrl: '/files/cover.png' },
  },
  { name: 'no field (no-op)', body: {} },
  { name: 'archived document', body: { title: 'Not allowed' }, before: 'archive' },
  { name: 'deleted document', body: { title: 'Too late' }, before: 'delete' },
  { name: 'missing document', body: { title: 'Nowhere' }, before: 'never-created' },
];

const Row = z.object({
  title: z.string(),
  content: z.string(),
  plainText: z.string(),
  excerpt: z.string(),
  wordCount: z.number(),
  icon: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  contentRevision: z.number(),
  lastEditedBy: z.string(),
  isArchived: z.boolean(),
  updatedAt: z.string(),
});

describe('the edit rule: alone and inside a transaction, the same answer, row and events', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack();
    [owner, editor] = await Promise.all([signInNew(t, 'Olga Owner'), signInNew(t, 'Ed Editor')]);
    ws = (await workspaceWith(t, owner, [[editor, 'EDITOR']])).id;
  });
  afterAll(() => t?.stop());

  const rowOf = (id: string) =>
    t.pool.maybeOne(sql.type(Row)`
      SELECT title, content, plain_text AS "plainText", excerpt, word_count AS "wordCount", icon,
        cover_image_url AS "coverImageUrl", content_revision AS "contentRevision", last_edited_by AS "lastEditedBy",
        is_archived AS "isArchived", updated_at AS "updatedAt"
      FROM documents WHERE id = ${id}`);

  /** A document as every kind starts from, after what the kind does to it first. */
  async function documentFor(kind: Kind): Promise<string> {
    if (kind.before === 'never-created') return '00000000-0000-4000-8000-000000000000';
    const doc = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Start',
      icon: '📄',
      coverImageUrl: 'https://img.test/1.png',
      content: [paragraph('the first words')],
    });
    if (kind.before === 'archive')
      expect((await t.call('PUT', `/api/v1/documents/${doc.id}`, owner, { isArchived: true })).status).toBe(200);
    if (kind.before === 'delete') {
      // Read first: the service remembers the document's workspace, so the PUT gets past the role check.
      expect((await t.call('GET', `/api/v1/documents/${doc.id}`, editor)).status).toBe(200);
      expect((await t.call('DELETE', `/api/v1/documents/${doc.id}`, owner)).status).toBe(200);
    }
    return doc.id;
  }

  /** One PUT of `kind` made `way`: what it answered, the row after it and the events it wrote. */
  async function edit(kind: Kind, way: Way) {
    const id = await documentFor(kind);
    const before = await rowOf(id);
    const seen = (await t.outbox()).length;
    const cap = eventMaxBytes();
    if (way.cap) configureEventMaxBytes(way.cap);
    let res: ApiResponse;
    try {
      res = await t.call('PUT', `/api/v1/documents/${id}`, editor, way.body(kind.body, kind.before === 'archive'));
    } finally {
      configureEventMaxBytes(cap);
    }
    const after = await rowOf(id);
    const events = (await t.outbox()).slice(seen);
    if (res.status === 200) {
      // The answer is the document as a GET reads it, and the event's time is the row's.
      expect((await t.call('GET', `/api/v1/documents/${id}`, editor)).body.data).toEqual(res.body.data);
      for (const e of events) expect(e.data.updatedAt).toBe(res.body.data.updatedAt);
    }
    return { id, res, before, after, events };
  }

  /** What must be the same between two documents edited alike: everything but ids and times. */
  function comparable({ id, res, before, after, events }: Awaited<ReturnType<typeof edit>>) {
    const { id: _id, createdAt: _c, updatedAt: _u, ...answer } = res.body?.data ?? {};
    const { requestId: _r, ...error } = res.body?.error ?? {};
    const untimed = (row: z.infer<typeof Row> | null) => row && { ...row, updatedAt: undefined };
    return {
      status: res.status,
      answer,
      error,
      before: untimed(before),
      after: untimed(after),
      changedRow: before !== null && after !== null && before.updatedAt !== after.updatedAt,
      events: events.map((e: OutboxEvent) => {
        expect(e.data.id).toBe(id);
        const { id: _eid, updatedAt: _eu, ...data } = e.data;
        return { type: e.type, actorId: e.actorId, workspaceId: e.workspaceId, data };
      }),
    };
  }

  it('runs alone under the usual cap, and measures the event in the transaction under a cap too small to skip it', () => {
    const template = createEnvelope({ type: 'document.updated', actorId: editor.id, workspaceId: ws, data: {} });
    expect(fitsUnmeasured(template)).toBe(true);
    const cap = eventMaxBytes();
    configureEventMaxBytes(MEASURED_CAP);
    try {
      expect(fitsUnmeasured(template)).toBe(false);
    } finally {
      configureEventMaxBytes(cap);
    }
  });

  for (const kind of KINDS)
    it(`answers, changes and publishes the same every way: ${kind.name}`, async () => {
      const results = [];
      for (const way of WAYS) results.push({ way: way.name, ...comparable(await edit(kind, way)) });
      const [alone, ...rest] = results;
      for (const other of rest) expect({ ...other, way: alone.way }, other.way).toEqual(alone);

      // And what each kind must do at all.
      if (kind.before === 'archive') {
        expect(alone).toMatchObject({ status: 409, error: { code: 'CONFLICT' }, changedRow: false, events: [] });
      } else if (kind.before) {
        expect(alone).toMatchObject({ status: 404, error: { code: 'NOT_FOUND' }, after: null, events: [] });
      } else if (Object.keys(kind.body).length === 0) {
        expect(alone).toMatchObject({ status: 200, changedRow: false, events: [] });
      } else {
        expect(alone).toMatchObject({ status: 200, changedRow: true, after: { lastEditedBy: editor.id } });
        expect(alone.events.map((e) => [e.type, e.data.changed.length])).toEqual([
          ['document.updated', Object.keys(kind.body).length],
        ]);
        const revision = (alone.before?.contentRevision ?? 0) + ('content' in kind.body ? 1 : 0);
        expect(alone.after?.contentRevision).toBe(revision);
      }
    });

  it('over the cap: 413 and nothing changed or written, every way (none of them runs alone)', async () => {
    const kind: Kind = { name: 'too large', body: { title: 'Renamed', content: [paragraph('x'.repeat(3000))] } };
    const tiny: Way[] = WAYS.map((way) => ({ ...way, cap: 2000 }));
    const template = createEnvelope({ type: 'document.updated', actorId: editor.id, workspaceId: ws, data: {} });
    const cap = eventMaxBytes();
    configureEventMaxBytes(2000);
    try {
      expect(fitsUnmeasured(template)).toBe(false);
    } finally {
      configureEventMaxBytes(cap);
    }
    for (const way of tiny) {
      const result = comparable(await edit(kind, way));
      expect(result, way.name).toMatchObject({ status: 413, error: { code: 'PAYLOAD_TOO_LARGE' }, events: [] });
      expect(result.error.message, way.name).toMatch(/document\.updated event is \d+ bytes, over the limit of 2000/);
      expect(result.after, way.name).toEqual(result.before);
    }
  });
});
