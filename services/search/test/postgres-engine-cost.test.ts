import { randomUUID } from 'node:crypto';
import { databaseUrl, loadConfig } from '@wiki/config';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql } from '@wiki/db';
import { migrationSetsOf } from '@wiki/service';
import { uniqueName } from '@wiki/testing';
import { createPool } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedDocument, SearchEngine } from '../src/engines/engine.js';
import { createPostgresEngine } from '../src/engines/postgres.js';
import { searchService } from '../src/service.js';

/**
 * What a search costs the database, beyond what it answers (the engine contract): the figures of
 * docs/PERFORMANCE.md depend on these staying true. Real Postgres, a database of its own.
 */

const pgUrl = loadConfig({ NODE_ENV: 'test', ...process.env }).pgUrl;

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
  version: 1,
});

describe('postgres engine: what a search costs', () => {
  let url: string;
  let pool: DatabasePool;
  let engine: SearchEngine;
  let statements = 0;

  beforeAll(async () => {
    url = databaseUrl(pgUrl, `${uniqueName()}_search`);
    await ensureDatabase(url);
    await migrate(url, migrationSetsOf(searchService));
    // The engine's own pool, with an interceptor counting the statements it sends.
    pool = await createPool(url, {
      maximumPoolSize: 2,
      interceptors: [
        {
          name: 'count-statements',
          beforeQueryExecution: () => {
            statements++;
            return null;
          },
        },
      ],
    });
    engine = await createPostgresEngine({ pool, tsConfig: 'simple' });
  });
  afterAll(async () => {
    await pool?.end();
    if (url) await dropDatabase(url);
  });

  it('answers a search, snippets included, in one statement', async () => {
    const workspaceId = randomUUID();
    await engine.upsert([
      doc(workspaceId, 'Release notes', 'Every change of the release.'),
      doc(workspaceId, 'Planning', 'The release train leaves on Monday.'),
      doc(workspaceId, 'Office', 'Keys to the subreleases cabinet.'),
    ]);
    statements = 0;
    const hits = await engine.search({ workspaceId, query: 'release', limit: 20 });
    expect(hits.map((h) => h.title)).toEqual(['Release notes', expect.any(String), expect.any(String)]);
    expect(hits.every((h) => h.snippet.includes('<mark>'))).toBe(true);
    expect(statements).toBe(1);
  });

  it('keeps the ranking vector of a page of prose in its row: only its text and full vector go out of line', async () => {
    const workspaceId = randomUUID();
    const pages = Array.from({ length: 20 }, (_, i) => doc(workspaceId, `Page ${i}`, prose(i + 1)));
    await engine.upsert(pages);
    // Each value moved out of line has a chunk_id of its own in the table's TOAST relation.
    const check = await createDatabasePool(url, { maximumPoolSize: 1 });
    try {
      const toast = await check.oneFirst(sql.unsafe`
        SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'search_documents'`);
      const outOfLine = await check.oneFirst(sql.unsafe`
        SELECT count(DISTINCT chunk_id)::int FROM ${sql.identifier(String(toast).split('.'))}`);
      // plain_text and tsv of each page; rank_tsv and title_tsv stay in the row.
      expect(outOfLine).toBeLessThanOrEqual(2 * pages.length);
      const ranked = await engine.search({ workspaceId, query: prose(3).split(' ')[0], limit: 5 });
      expect(ranked.map((h) => h.id)).toContain(pages[2].id);
    } finally {
      await check.end();
    }
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
    const hits = await engine.search({ workspaceId, query: 'budget', limit: 20 });
    expect(hits[0]).toMatchObject({ id: titled.id, matchField: 'title' });
    expect(hits).toHaveLength(20);
  });

  it('finds a word by a part of three or more letters, and makes no lexemes of two-letter word ends', async () => {
    const workspaceId = randomUUID();
    const office = doc(workspaceId, 'Moving day', 'The office moves on Monday.');
    await engine.upsert([office]);
    expect((await engine.search({ workspaceId, query: 'fice', limit: 5 })).map((h) => h.id)).toEqual([office.id]);
    expect((await engine.search({ workspaceId, query: 'ice moves', limit: 5 })).map((h) => h.id)).toEqual([office.id]);
    // `ce` alone is the end of `office` only: a two-letter piece makes no lexeme of its own.
    expect(await engine.search({ workspaceId, query: 'ce moves', limit: 5 })).toEqual([]);
  });
});
