import { randomUUID } from 'node:crypto';
import {
  capUnderPayload,
  configureEventMaxBytes,
  EVENT_MAX_IDS,
  EVENT_TEXT_MAX_BYTES,
  eventMaxBytes,
  insertEnvelopesSql,
} from '@wiki/events';
import { createServiceClient, wholePlainText } from '@wiki/service-client';
import {
  connectTestBus,
  createDocument,
  createWorkspace,
  type EventRecorder,
  eventually,
  paragraph,
  recordEvents,
  type SignedInUser,
  signInNew,
} from '@wiki/testing';
import pg from 'pg';
import { type DocStack, startDocStack } from './helpers.js';

/**
 * Issue 11, point 1 (the write side): no document event grows with user input. Through the real
 * gateway, workspace and document services, NATS and Postgres: a 2 MiB document travels with its
 * text cut and flagged, and a consumer gets the whole text from the internal route; a cascade
 * delete of 30,000 documents goes out as several document.deleted events that reach the
 * workspace service's count.
 */
describe('bounded document events', () => {
  let t: DocStack;
  let rec: EventRecorder;
  let owner: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    // Not the default: the test below checks that the service kit applied it at connect.
    t = await startDocStack({ EVENT_MAX_BYTES: '300000' });
    rec = await recordEvents(t.config);
    owner = await signInNew(t, 'Bea Bounded');
    ws = (await createWorkspace(t, owner)).id;
  });
  afterAll(async () => {
    await rec?.close();
    await t?.stop();
  });

  const MAX_CONTENT_BYTES = 2 * 1024 * 1024;

  /**
   * Paragraphs whose content JSON is just under the 2 MiB content limit and whose plain text is
   * nearly all of it. The first paragraph starts with one ASCII letter and then emoji (surrogate
   * pairs, 4 bytes each), so the 64 KiB cut falls inside one: the cut must step back over it.
   */
  function bigText(seed: string): { blocks: ReturnType<typeof paragraph>[]; plainText: string } {
    const first = `${seed}${'😀'.repeat(20_000)}`;
    expect((EVENT_TEXT_MAX_BYTES - Buffer.byteLength(seed)) % 4).not.toBe(0);
    const texts = [first];
    const filler = `${seed} grüße wörter 文字 text `;
    const fillerBytes = Buffer.byteLength(filler);
    // Three more paragraphs fill what is left of the 2 MiB, with room for the blocks' JSON.
    const left = MAX_CONTENT_BYTES - 4096 - Buffer.byteLength(JSON.stringify([paragraph(first)]));
    for (let i = 0; i < 3; i++) texts.push(filler.repeat(Math.floor(left / 3 / fillerBytes)));
    const blocks = texts.map(paragraph);
    const jsonBytes = Buffer.byteLength(JSON.stringify(blocks));
    expect(jsonBytes).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(jsonBytes).toBeGreaterThan(MAX_CONTENT_BYTES - 8 * 1024);
    return { blocks, plainText: texts.join('\n') };
  }

  /** The event of `type` about document `id` once the test consumer has it. */
  const eventOf = (type: string, id: string) =>
    eventually(
      () => {
        const found = rec.ofType(type).find((e) => e.data.id === id);
        if (!found) throw new Error(`no ${type} for ${id} yet`);
        return found;
      },
      { timeoutMs: 30_000 },
    );

  it('writes under EVENT_MAX_BYTES, lowered only if the NATS server needs it (set by the service kit at connect)', async () => {
    const bus = await connectTestBus(t.config);
    try {
      const maxPayload = bus.nc.info?.max_payload ?? 0;
      expect(maxPayload).toBeGreaterThan(0);
      expect(eventMaxBytes()).toBe(capUnderPayload(300_000, maxPayload));
      expect(eventMaxBytes()).toBeLessThan(maxPayload);
    } finally {
      await bus.close();
    }
  });

  it('sends a 2 MiB text cut to 64 KiB with a flag; the whole text comes from the internal route (created and updated)', async () => {
    const search = createServiceClient({
      service: 'search',
      config: t.config,
      logger: { error: () => undefined },
      timeoutMs: 20_000,
    });

    const v1 = bigText('a');
    expect(Buffer.byteLength(v1.plainText)).toBeGreaterThan(1.9 * 1024 * 1024);
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Big', content: v1.blocks });

    const created = await eventOf('document.created', doc.id);
    expect(created.data.plainTextTruncated).toBe(true);
    const cut: string = created.data.plainText;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(EVENT_TEXT_MAX_BYTES);
    expect(Buffer.byteLength(cut)).toBeGreaterThan(EVENT_TEXT_MAX_BYTES - 4);
    expect(v1.plainText.startsWith(cut)).toBe(true);
    expect(cut.endsWith('😀')).toBe(true);
    // What the consumer does with the flag: fetch the rest, as a service.
    expect(await wholePlainText(search, created.data)).toBe(v1.plainText);

    const v2 = bigText('b');
    const put = await t.call('PUT', `/api/v1/documents/${doc.id}`, owner, { content: v2.blocks });
    expect(put.status).toBe(200);
    const updated = await eventOf('document.updated', doc.id);
    expect(updated.data.plainTextTruncated).toBe(true);
    expect(Buffer.byteLength(updated.data.plainText)).toBeLessThanOrEqual(EVENT_TEXT_MAX_BYTES);
    expect(v2.plainText.startsWith(updated.data.plainText)).toBe(true);
    expect(await wholePlainText(search, updated.data)).toBe(v2.plainText);

    // A short text travels whole, unflagged, and needs no call.
    const small = await createDocument(t, owner, { workspaceId: ws, content: [paragraph('short')] });
    const smallEvent = await eventOf('document.created', small.id);
    expect(smallEvent.data).toMatchObject({ plainText: 'short', plainTextTruncated: false });
    expect(await wholePlainText(search, smallEvent.data)).toBe('short');
    expect(rec.contractViolations()).toEqual([]);
  }, 120_000);

  it('cuts the plainText of a collaboration save the same way (the collab server sends it whole)', async () => {
    const search = createServiceClient({ service: 'search', config: t.config, logger: { error: () => undefined } });
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Live', content: [paragraph('start')] });
    // No line breaks: multipart form fields carry them as CRLF.
    const text = `c${'😀'.repeat(20_000)} ${'live edits, '.repeat(200_000)}`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024);
    const form = new FormData();
    form.append(
      'collabState',
      new Blob([new Uint8Array([1, 2, 3])], { type: 'application/octet-stream' }),
      'state.bin',
    );
    form.append('plainText', text);
    const saved = await t.internal('POST', `/api/v1/internal/documents/${doc.id}/collab-state`, { body: form });
    expect(saved.status).toBe(200);
    const updated = await eventOf('document.updated', doc.id);
    expect(updated.data).toMatchObject({ plainTextTruncated: true, changed: ['content'] });
    expect(Buffer.byteLength(updated.data.plainText)).toBeLessThanOrEqual(EVENT_TEXT_MAX_BYTES);
    expect(text.startsWith(updated.data.plainText)).toBe(true);
    expect(await wholePlainText(search, updated.data)).toBe(text);
  }, 60_000);

  it('answers the whole text only to a service identity, and 404 for an unknown document', async () => {
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Text', content: [paragraph('whole')] });
    const ok = await t.direct('GET', `/internal/documents/${doc.id}/text`, await t.serviceToken('search'));
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({
      id: doc.id,
      workspaceId: ws,
      createdBy: owner.id,
      parentId: null,
      title: 'Text',
      icon: null,
      plainText: 'whole',
      archived: false,
      updatedAt: doc.updatedAt,
    });
    expect((await t.direct('GET', `/internal/documents/${doc.id}/text`, null)).status).toBe(401);
    const missing = await t.direct('GET', `/internal/documents/${randomUUID()}/text`, await t.serviceToken('search'));
    expect(missing.status).toBe(404);
  });

  it('splits the document.deleted of a 30,000-document cascade; the workspace count ends right', async () => {
    const TOTAL = 30_000;
    const { space, root, others, subtree, countIs } = await workspaceWithBigTree(TOTAL);

    const deleted = await t.call('DELETE', `/api/v1/documents/${root.id}/cascade`, owner);
    expect(deleted.status).toBe(200);

    const parts = await allParts('document.deleted', root.id);
    expect(parts).toHaveLength(Math.ceil(TOTAL / EVENT_MAX_IDS));
    for (const part of parts) expect(part.data.cascade).toBe(true);
    expect(idsNamed(parts)).toEqual(subtree);

    // The workspace service consumed every part: only the documents outside the subtree count.
    await countIs(others.length);
    expect(await documentCount(space)).toBe(others.length);
    expect(rec.contractViolations()).toEqual([]);
  }, 180_000);

  it('splits document.archived and document.restored of a big subtree the same way', async () => {
    const TOTAL = 2_500;
    const { root, others, subtree, countIs } = await workspaceWithBigTree(TOTAL);

    expect((await t.call('PUT', `/api/v1/documents/${root.id}`, owner, { isArchived: true })).status).toBe(200);
    const archived = await allParts('document.archived', root.id);
    expect(archived).toHaveLength(3);
    expect(idsNamed(archived)).toEqual(subtree);
    await countIs(others.length);

    expect((await t.call('PUT', `/api/v1/documents/${root.id}`, owner, { isArchived: false })).status).toBe(200);
    const restored = await allParts('document.restored', root.id);
    expect(restored).toHaveLength(3);
    expect(idsNamed(restored)).toEqual(subtree);
    await countIs(others.length + TOTAL);
    expect(rec.contractViolations()).toEqual([]);
  }, 120_000);

  /**
   * A new workspace with three documents and a tree of `total` documents under one root (299 in
   * the middle level, the rest below them), counted by the workspace service before it returns.
   * The tree comes from two SQL statements that insert documents and their document.created
   * events together (as the batched create path does), which is fast enough for 30,000.
   */
  async function workspaceWithBigTree(total: number) {
    const mids = 299;
    const space = (await createWorkspace(t, owner)).id;
    const root = await createDocument(t, owner, { workspaceId: space, title: 'Root of many' });
    // Three documents outside the subtree stay: the count must end at exactly their number.
    const others = await Promise.all(
      [1, 2, 3].map((i) => createDocument(t, owner, { workspaceId: space, title: `Stays ${i}` })),
    );
    const countIs = (expected: number) =>
      eventually(
        async () => {
          const n = await documentCount(space);
          if (n !== expected) throw new Error(`documentCount ${n}, waiting for ${expected}`);
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
    await countIs(others.length + 1);

    const params = [space, owner.id, root.id];
    await rawQuery(insertLevelSql(`SELECT $3::uuid, n FROM generate_series(1, ${mids}) AS n`), params);
    await rawQuery(
      insertLevelSql(`
        SELECT m.id, n FROM generate_series(1, ${total - 1 - mids}) AS n
        JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM documents WHERE parent_id = $3::uuid) m
          ON m.k = n % ${mids}`),
      params,
    );
    const rows = await rawQuery(
      `WITH RECURSIVE s AS (SELECT id FROM documents WHERE id = $1::uuid
        UNION ALL SELECT d.id FROM documents d JOIN s ON d.parent_id = s.id) SELECT id FROM s`,
      [root.id],
    );
    const subtree = rows.map((r) => r.id).sort();
    expect(subtree).toHaveLength(total);
    await countIs(others.length + total);
    return { space, root, others, subtree, countIs };
  }

  /** Every part of the split event of `type` about `rootId`, once the test consumer has them all. */
  async function allParts(type: string, rootId: string) {
    const parts = await eventually(
      () => {
        const found = rec.ofType(type).filter((e) => e.data.id === rootId);
        const expected = found[0]?.data.parts;
        if (!expected || found.length < expected) throw new Error(`${found.length} parts of ${type} so far`);
        return found;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(parts.map((e) => e.data.part).sort((a, b) => a - b)).toEqual(parts.map((_, i) => i + 1));
    for (const part of parts) {
      expect(part.data.parts).toBe(parts.length);
      expect(part.data.ids.length).toBeLessThanOrEqual(EVENT_MAX_IDS);
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThan(eventMaxBytes());
    }
    return parts;
  }

  /** The ids the parts name together, sorted; each id once (a repeat would be counted twice). */
  function idsNamed(parts: EventRecorder['events']): string[] {
    const ids = parts.flatMap((e) => e.data.ids as string[]);
    expect(new Set(ids).size).toBe(ids.length);
    return ids.sort();
  }

  it('answers 413 PAYLOAD_TOO_LARGE, and changes nothing, when a write would need an event over the cap', async () => {
    const doc = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Stays as it is',
      content: [paragraph('x'.repeat(3000))],
    });
    const countDocs = async () =>
      (await rawQuery<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE workspace_id = $1', [ws]))[0].n;
    const outboxRows = async () => (await rawQuery('SELECT id FROM event_outbox', [])).length;
    const docsBefore = await countDocs();
    const outboxBefore = await outboxRows();
    // The services run in this process: lower the cap they write under (no document event can
    // reach the real one, which is the point of the caps above).
    const cap = eventMaxBytes();
    configureEventMaxBytes(2000);
    try {
      const put = await t.call('PUT', `/api/v1/documents/${doc.id}`, owner, { title: 'Renamed' });
      expect(put.status).toBe(413);
      expect(put.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(put.body.error.message).toMatch(/document\.updated event is \d+ bytes, over the limit of 2000/);
      const post = await t.call('POST', '/api/v1/documents', owner, {
        workspaceId: ws,
        content: [paragraph('y'.repeat(3000))],
      });
      expect(post.status).toBe(413);
      expect(post.body.error.message).toMatch(/document\.created event/);
    } finally {
      configureEventMaxBytes(cap);
    }
    expect((await t.call('GET', `/api/v1/documents/${doc.id}`, owner)).body.data.title).toBe('Stays as it is');
    expect(await countDocs()).toBe(docsBefore);
    expect(await outboxRows()).toBe(outboxBefore);
  });

  async function documentCount(workspaceId: string): Promise<number> {
    const res = await t.call('GET', `/api/v1/workspaces/${workspaceId}`, owner);
    return res.body.data.documentCount;
  }

  function insertLevelSql(parents: string): string {
    return `
      WITH doc AS (
        INSERT INTO documents (workspace_id, parent_id, title, owner_id, created_by, last_edited_by)
        SELECT $1::uuid, p.parent_id, 'Child ' || p.n, $2::uuid, $2::uuid, $2::uuid FROM (${parents}) AS p(parent_id, n)
        RETURNING id, workspace_id, parent_id, title, updated_at
      ), event AS (${insertEnvelopesSql(`
        SELECT jsonb_build_object('id', gen_random_uuid(), 'type', 'document.created', 'version', 1,
          'occurredAt', to_jsonb(now()), 'actorId', $2::text, 'workspaceId', $1::text,
          'data', jsonb_build_object('id', d.id, 'workspaceId', d.workspace_id, 'parentId', d.parent_id,
            'title', d.title, 'icon', NULL, 'isArchived', false, 'isPublished', false, 'isTemplate', false,
            'updatedAt', to_jsonb(d.updated_at), 'plainText', '', 'plainTextTruncated', false))
        FROM doc d`)})
      SELECT count(*) FROM doc`;
  }

  /** A statement with positional parameters on the document service's database (test set-up only). */
  async function rawQuery<Row = { id: string }>(text: string, values: unknown[]): Promise<Row[]> {
    const client = new pg.Client({ connectionString: t.config.databaseUrls.document });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }
});
