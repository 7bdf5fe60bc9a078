import { randomUUID } from 'node:crypto';
import { sql } from '@wiki/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedDocument, SearchEngine } from '../src/engines/engine.js';
import { createPostgresEngine } from '../src/engines/postgres.js';
import { type CountedDatabase, countedSearchDatabase } from './counted-database.js';

/**
 * What a search costs the database, beyond what it answers (the engine contract): the figures of
 * docs/PERFORMANCE.md depend on these staying true. Real Postgres, a database of its own.
 */

/** 150 distinct words of 6–9 letters, like a page of prose without repeats (deterministic). */
function prose(seed: number, words = 150): string {
  const letters = 'abcdefghijklmnoprstuvwz';
  return Array.from({ length: words }, (_, i) => {
    let n = seed * 7919 + i * 104_729;
    let word = '';
    for (let k = 0; k < 6 + (i % 4); k++) {
      word += letters[n % letters.length];
      n = Math.floor(n / letters.length) + 31 * (k + 1);
    }
    return word;
  }).join(' ');
}

const doc = (workspaceId: string, title: string, plainText: string): IndexedDocument => ({
  id: randomUUID(),
  workspaceId,
  parentId: null,
  title,
  icon: null,
  plainText,
  archived: false,
  createdBy: null,
  updatedAt: Date.parse('2026-01-01T00:00:00Z'),
  version: 1,
});

describe('postgres engine: what a search costs', () => {
  let db: CountedDatabase;
  let engine: SearchEngine;

  beforeAll(async () => {
    db = await countedSearchDatabase();
    engine = await createPostgresEngine({ pool: db.pool, reads: db.reads, tsConfig: 'simple' });
  });
  afterAll(() => db?.drop());

  it('answers a search, snippets included, in one statement', async () => {
    const workspaceId = randomUUID();
    await engine.upsert([
      doc(workspaceId, 'Release notes', 'Every change of the release.'),
      doc(workspaceId, 'Planning', 'The release train leaves on Monday.'),
      doc(workspaceId, 'Office', 'Keys to the subreleases cabinet.'),
    ]);
    db.reset();
    const hits = (await engine.search({ workspaceId, query: 'release', limit: 20 })).hits;
    expect(hits.map((h) => h.title)).toEqual(['Release notes', expect.any(String), expect.any(String)]);
    expect(hits.every((h) => h.snippet.includes('<mark>'))).toBe(true);
    expect(db.statements()).toBe(1);
  });

  it('keeps the ranking vector of a page of prose in its row: only its text and full vector go out of line', async () => {
    const workspaceId = randomUUID();
    const pages = Array.from({ length: 20 }, (_, i) => doc(workspaceId, `Page ${i}`, prose(i + 1)));
    await engine.upsert(pages);
    // Each value moved out of line has a chunk_id of its own in the table's TOAST relation.
    const toast = await db.pool.oneFirst(sql.unsafe`
      SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'search_documents'`);
    const outOfLine = await db.pool.oneFirst(sql.unsafe`
      SELECT count(DISTINCT chunk_id)::int FROM ${sql.identifier(String(toast).split('.'))}`);
    // plain_text and tsv of each page; rank_tsv and title_tsv stay in the row.
    expect(outOfLine).toBeLessThanOrEqual(2 * pages.length);
    const ranked = (await engine.search({ workspaceId, query: prose(3).split(' ')[0], limit: 5 })).hits;
    expect(ranked.map((h) => h.id)).toContain(pages[2].id);
  });

  it('ranks a title match first among more content matches than it ranks', async () => {
    const workspaceId = randomUUID();
    const many = Array.from({ length: 700 }, (_, i) =>
      doc(workspaceId, `Note ${i}`, `Minutes: the budget of week ${i}.`),
    );
    const titled = doc(workspaceId, 'Budget', 'Figures for the year.');
    // The title match is written last: first in neither the table nor the index's order.
    await engine.upsert(many);
    await engine.upsert([titled]);
    const hits = (await engine.search({ workspaceId, query: 'budget', limit: 20 })).hits;
    expect(hits[0]).toMatchObject({ id: titled.id, matchField: 'title' });
    expect(hits).toHaveLength(20);
  });

  it('finds a word by a part of three or more letters, and makes no lexemes of two-letter word ends', async () => {
    const workspaceId = randomUUID();
    const office = doc(workspaceId, 'Moving day', 'The office moves on Monday.');
    await engine.upsert([office]);
    expect((await engine.search({ workspaceId, query: 'fice', limit: 5 })).hits.map((h) => h.id)).toEqual([office.id]);
    expect((await engine.search({ workspaceId, query: 'ice moves', limit: 5 })).hits.map((h) => h.id)).toEqual([
      office.id,
    ]);
    // `ce` alone is the end of `office` only: a two-letter piece makes no lexeme of its own.
    expect((await engine.search({ workspaceId, query: 'ce moves', limit: 5 })).hits).toEqual([]);
  });
});

describe('postgres engine: the last word through the lexicon', () => {
  let db: CountedDatabase;
  let engine: SearchEngine;

  beforeAll(async () => {
    db = await countedSearchDatabase();
    engine = await createPostgresEngine({ pool: db.pool, reads: db.reads, tsConfig: 'simple' });
  });
  afterAll(() => db?.drop());

  const lexiconCount = async (prefix: string) =>
    Number(
      await db.pool.oneFirst(sql.unsafe`
        SELECT count(*)::int FROM search_lexemes WHERE lexeme LIKE ${`${prefix}%`}`),
    );

  it('holds every lexeme of what was written, and finds a prefix of a few words and of more than 64', async () => {
    const workspaceId = randomUUID();
    // 70 words starting with `zq` (and no suffix starting with it): a prefix of more than 64 lexemes.
    const pages = Array.from({ length: 70 }, (_, i) => doc(workspaceId, `Page ${i}`, `Code zq${i}word here.`));
    await engine.upsert(pages.slice(0, 35));
    await engine.upsert(pages.slice(35));
    expect(await lexiconCount('zq')).toBe(70);
    expect(await lexiconCount('word')).toBe(1);

    // `zq1`: zq1word and zq10word … zq19word, 11 lexemes, turned into exact ones.
    const few = (await engine.search({ workspaceId, query: 'code zq1', limit: 50 })).hits;
    expect(few.map((h) => h.title).sort()).toEqual(
      ['Page 1', ...Array.from({ length: 10 }, (_, i) => `Page ${10 + i}`)].sort(),
    );
    // `zq`: 70 lexemes, kept a prefix.
    expect((await engine.search({ workspaceId, query: 'zq', limit: 50 })).hits).toHaveLength(50);
    // The prefix inside a word (a suffix's start) and of a word written after the others.
    expect((await engine.search({ workspaceId, query: 'q7wor', limit: 50 })).hits.map((h) => h.title)).toEqual([
      'Page 7',
    ]);
    const late = doc(workspaceId, 'Late', 'Written after: zq1late.');
    await engine.upsert([late]);
    expect((await engine.search({ workspaceId, query: 'zq1l', limit: 50 })).hits.map((h) => h.id)).toEqual([late.id]);
  });

  it('sends a lexeme it already added once only (one writer, two batches)', async () => {
    const workspaceId = randomUUID();
    await engine.upsert([doc(workspaceId, 'First', 'Plover gannet.')]);
    const before = await lexiconCount('plover');
    db.reset();
    await engine.upsert([doc(workspaceId, 'First', 'Plover gannet.')]);
    // The document's statement only: no lexicon statement for lexemes it sent before.
    expect(db.statements()).toBe(1);
    expect(await lexiconCount('plover')).toBe(before);
  });
});
