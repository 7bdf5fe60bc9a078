import { LocalCache } from '@wiki/cache';
import { type DatabasePool, type PreparedPool, sql, z } from '@wiki/db';
import { fold } from '../domain/fold.js';
import { withoutSelectors } from '../domain/snippet.js';
import { titleKey } from '../domain/tokens.js';
import { documentVectors } from '../domain/vector.js';
import type {
  DocumentPatch,
  IdPage,
  IndexedDocument,
  IndexedPassage,
  PassageIdPage,
  PassageRemoval,
  SearchEngine,
} from './engine.js';
import { postgresSearch } from './postgres-search.js';

export interface PostgresEngineOptions {
  /** The service's pool: writes and the rest. */
  pool: DatabasePool;
  /** A node-postgres pool of the same database for searches (named statements, planned once per connection). */
  reads: PreparedPool;
  /** A text search configuration of the database (SEARCH_TS_CONFIG); 'simple' adds nothing. */
  tsConfig: string;
}

/**
 * Lexemes this process knows to be in search_lexemes already: not sent again (a page's ~600
 * lexemes are mostly ones the lexicon has). Only ever added to, so a lexeme known here is there.
 */
const KNOWN_LEXEMES = 100_000;

/** Only this much of a text is given to a non-'simple' configuration (its stems and stop words). */
const CONFIG_TEXT_CHARS = 200_000;

const storedRow = z.object({
  id: z.string(),
  created_by: z.string().nullable(),
  updated_ms: z.coerce.number(),
  workspace_id: z.string(),
  parent_id: z.string().nullable(),
  icon: z.string().nullable(),
  archived: z.boolean(),
  plain_text: z.string(),
  text_version: z.coerce.number(),
});

/** The default engine: everything in the service's own database (ARCHITECTURE 5.8). */
export async function createPostgresEngine(options: PostgresEngineOptions): Promise<SearchEngine> {
  const { pool, reads, tsConfig } = options;
  // Fails at start-up, naming the setting, rather than on the first search.
  await pool.query(sql.unsafe`SELECT ${tsConfig}::regconfig`).catch((error: Error) => {
    throw new Error(
      `SEARCH_TS_CONFIG names no text search configuration of the database ("${tsConfig}"): ${error.message}`,
    );
  });
  const extraLexemes = tsConfig !== 'simple';
  const cfg = sql.fragment`${tsConfig}::regconfig`;
  const knownLexemes = new LocalCache<true>({ maxEntries: KNOWN_LEXEMES });

  /** Adds the lexemes of the rows about to be written to the lexicon, before they are (a search expands prefixes from it). */
  async function addToLexicon(lexemes: Iterable<string>): Promise<void> {
    const unknown = new Set<string>();
    for (const lexeme of lexemes) if (!knownLexemes.get(lexeme)) unknown.add(lexeme);
    if (unknown.size === 0) return;
    // In one order for every writer: two inserting overlapping lexemes cannot wait on each other.
    const sorted = [...unknown].sort();
    await pool.query(sql.unsafe`
      INSERT INTO search_lexemes (lexeme) SELECT unnest(${sql.array(sorted, 'text')}) ON CONFLICT DO NOTHING`);
    for (const lexeme of sorted) knownLexemes.set(lexeme, true);
  }

  async function upsert(documents: readonly IndexedDocument[]): Promise<void> {
    if (documents.length === 0) return;
    // One row per id (the newest): one statement cannot update a row twice.
    const newest = new Map<string, IndexedDocument>();
    for (const doc of documents) {
      const seen = newest.get(doc.id);
      if (!seen || seen.version <= doc.version) newest.set(doc.id, doc);
    }
    const rows: Array<{
      doc: IndexedDocument;
      text: string;
      title: string;
      vector: string;
      titleVector: string;
      rankVector: string;
      lexemes: string[];
    }> = [];
    for (const doc of newest.values()) {
      const text = withoutSelectors(doc.plainText);
      const title = withoutSelectors(doc.title);
      rows.push({ doc, text, title, ...documentVectors(title, text) });
      // A large text takes a while to cut into lexemes: let requests in between documents.
      if (text.length > 100_000) await new Promise((resolve) => setImmediate(resolve));
    }
    await addToLexicon(rows.flatMap((r) => r.lexemes));
    const col = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
    const foldedTitles = extraLexemes ? col((r) => fold(r.title)) : [];
    const foldedTexts = extraLexemes ? col((r) => fold(r.text.slice(0, CONFIG_TEXT_CHARS))) : [];
    const tsv = extraLexemes
      ? sql.fragment`u.tsv::tsvector || setweight(to_tsvector(${cfg}, x.title), 'A') || setweight(to_tsvector(${cfg}, x.body), 'C')`
      : sql.fragment`u.tsv::tsvector`;
    const titleTsv = extraLexemes
      ? sql.fragment`u.title_tsv::tsvector || setweight(to_tsvector(${cfg}, x.title), 'A')`
      : sql.fragment`u.title_tsv::tsvector`;
    const rankTsv = extraLexemes
      ? sql.fragment`u.rank_tsv::tsvector || setweight(to_tsvector(${cfg}, x.title), 'A')`
      : sql.fragment`u.rank_tsv::tsvector`;
    const extra = extraLexemes
      ? sql.fragment`JOIN unnest(${sql.array(
          col((r) => r.doc.id),
          'uuid',
        )}, ${sql.array(foldedTitles, 'text')}, ${sql.array(foldedTexts, 'text')}) AS x(id, title, body) ON x.id = u.id`
      : sql.fragment``;
    await pool.query(sql.unsafe`
      INSERT INTO search_documents AS d
        (id, workspace_id, parent_id, title, icon, plain_text, archived, title_key, tsv, title_tsv, rank_tsv,
         text_version, state_version, created_by, updated_at)
      SELECT u.id, u.workspace_id, u.parent_id, u.title, u.icon, u.plain_text, u.archived, u.title_key,
             ${tsv}, ${titleTsv}, ${rankTsv}, u.version, u.version, u.created_by, to_timestamp(u.updated_at / 1000.0)
      FROM unnest(
        ${sql.array(
          col((r) => r.doc.id),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.doc.workspaceId),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.doc.parentId),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.title),
          'text',
        )},
        ${sql.array(
          col((r) => r.doc.icon),
          'text',
        )},
        ${sql.array(
          col((r) => r.text),
          'text',
        )},
        ${sql.array(
          col((r) => r.doc.archived),
          'bool',
        )},
        ${sql.array(
          col((r) => titleKey(r.title)),
          'text',
        )},
        ${sql.array(
          col((r) => r.vector),
          'text',
        )},
        ${sql.array(
          col((r) => r.titleVector),
          'text',
        )},
        ${sql.array(
          col((r) => r.rankVector),
          'text',
        )},
        ${sql.array(
          col((r) => Math.trunc(r.doc.version)),
          'int8',
        )},
        ${sql.array(
          col((r) => r.doc.createdBy),
          'uuid',
        )},
        ${sql.array(
          col((r) => Math.trunc(r.doc.updatedAt)),
          'int8',
        )}
      ) AS u(id, workspace_id, parent_id, title, icon, plain_text, archived, title_key, tsv, title_tsv, rank_tsv, version,
             created_by, updated_at)
      ${extra}
      WHERE NOT EXISTS (SELECT 1 FROM search_removed_documents r WHERE r.id = u.id)
      ON CONFLICT (id) DO UPDATE SET
        title = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.title ELSE d.title END,
        plain_text = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.plain_text ELSE d.plain_text END,
        title_key = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.title_key ELSE d.title_key END,
        tsv = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.tsv ELSE d.tsv END,
        title_tsv = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.title_tsv ELSE d.title_tsv END,
        rank_tsv = CASE WHEN EXCLUDED.text_version >= d.text_version THEN EXCLUDED.rank_tsv ELSE d.rank_tsv END,
        text_version = greatest(d.text_version, EXCLUDED.text_version),
        parent_id = CASE WHEN EXCLUDED.state_version >= d.state_version THEN EXCLUDED.parent_id ELSE d.parent_id END,
        icon = CASE WHEN EXCLUDED.state_version >= d.state_version THEN EXCLUDED.icon ELSE d.icon END,
        archived = CASE WHEN EXCLUDED.state_version >= d.state_version THEN EXCLUDED.archived ELSE d.archived END,
        state_version = greatest(d.state_version, EXCLUDED.state_version),
        created_by = coalesce(EXCLUDED.created_by, d.created_by),
        updated_at = greatest(d.updated_at, EXCLUDED.updated_at),
        indexed_at = now()`);
  }

  async function patch(patches: readonly DocumentPatch[]): Promise<string[]> {
    if (patches.length === 0) return [];
    const newest = new Map<string, DocumentPatch>();
    for (const p of patches) {
      const seen = newest.get(p.id);
      // Two patches of one id in a batch: the newer wins, but keeps fields only the older set.
      if (!seen) newest.set(p.id, p);
      else newest.set(p.id, seen.version <= p.version ? { ...seen, ...p } : { ...p, ...seen });
    }
    const list = [...newest.values()];
    const has = (key: keyof DocumentPatch) => list.map((p) => Object.hasOwn(p, key) && p[key] !== undefined);
    await pool.query(sql.unsafe`
      UPDATE search_documents AS d SET
        parent_id = CASE WHEN p.has_parent THEN p.parent_id ELSE d.parent_id END,
        icon = CASE WHEN p.has_icon THEN p.icon ELSE d.icon END,
        archived = coalesce(p.archived, d.archived),
        updated_at = greatest(d.updated_at, p.updated_at),
        state_version = p.version,
        indexed_at = now()
      FROM unnest(
        ${sql.array(
          list.map((p) => p.id),
          'uuid',
        )},
        ${sql.array(
          list.map((p) => p.parentId ?? null),
          'uuid',
        )},
        ${sql.array(has('parentId'), 'bool')},
        ${sql.array(
          list.map((p) => p.icon ?? null),
          'text',
        )},
        ${sql.array(has('icon'), 'bool')},
        ${sql.array(
          list.map((p) => p.archived ?? null),
          'bool',
        )},
        ${sql.array(
          list.map((p) => Math.trunc(p.version)),
          'int8',
        )},
        ${sql.array(
          list.map((p) => (p.updatedAt === undefined ? null : new Date(p.updatedAt).toISOString())),
          'timestamptz',
        )}
      ) AS p(id, parent_id, has_parent, icon, has_icon, archived, version, updated_at)
      WHERE d.id = p.id AND p.version >= d.state_version`);
    const unknown = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT u.id FROM unnest(${sql.array(
        list.map((p) => p.id),
        'uuid',
      )}) AS u(id)
      WHERE NOT EXISTS (SELECT 1 FROM search_documents d WHERE d.id = u.id)
        AND NOT EXISTS (SELECT 1 FROM search_removed_documents r WHERE r.id = u.id)`);
    // A new title changes the lexemes, which are made here from the stored text (rare: titles
    // come with document.updated, which carries the text too).
    const retitled = list.filter((p) => p.title !== undefined);
    if (retitled.length === 0) return [...unknown];
    const stored = await pool.any(sql.type(storedRow)`
      SELECT id, workspace_id, parent_id, icon, archived, plain_text, text_version, created_by,
             floor(extract(epoch FROM updated_at) * 1000) AS updated_ms
      FROM search_documents
      WHERE id = ANY(${sql.array(
        retitled.map((p) => p.id),
        'uuid',
      )})`);
    const titles = new Map(retitled.map((p) => [p.id, p]));
    const renamed: IndexedDocument[] = [];
    for (const row of stored) {
      const p = titles.get(row.id);
      if (!p?.title || p.version < row.text_version) continue;
      renamed.push({
        id: row.id,
        workspaceId: row.workspace_id,
        parentId: row.parent_id,
        title: p.title,
        icon: row.icon,
        plainText: row.plain_text,
        archived: row.archived,
        createdBy: row.created_by,
        updatedAt: Math.max(row.updated_ms, p.updatedAt ?? 0),
        version: p.version,
      });
    }
    await upsert(renamed);
    return [...unknown];
  }

  async function remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const list = sql.array([...new Set(ids)], 'uuid');
    await pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`
        INSERT INTO search_removed_documents (id) SELECT unnest(${list}) ON CONFLICT (id) DO NOTHING`);
      await tx.query(sql.unsafe`DELETE FROM search_documents WHERE id = ANY(${list})`);
      await tx.query(sql.unsafe`DELETE FROM search_passages WHERE document_id = ANY(${list})`);
    });
  }

  async function removeWorkspace(workspaceId: string): Promise<void> {
    await pool.query(sql.unsafe`DELETE FROM search_documents WHERE workspace_id = ${workspaceId}`);
    await pool.query(sql.unsafe`DELETE FROM search_passages WHERE workspace_id = ${workspaceId}`);
  }

  async function upsertPassages(passages: readonly IndexedPassage[]): Promise<void> {
    const newest = new Map<string, IndexedPassage>();
    for (const p of passages) {
      const seen = newest.get(p.id);
      if (!seen || seen.version <= p.version) newest.set(p.id, p);
    }
    if (newest.size === 0) return;
    const rows = [...newest.values()].map((p) => {
      const text = withoutSelectors(p.text);
      return { p, text, ...documentVectors('', text) };
    });
    await addToLexicon(rows.flatMap((r) => r.lexemes));
    const col = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
    const tsv = extraLexemes
      ? sql.fragment`u.tsv::tsvector || setweight(to_tsvector(${cfg}, u.folded), 'C')`
      : sql.fragment`u.tsv::tsvector`;
    const rankTsv = extraLexemes
      ? sql.fragment`u.rank_tsv::tsvector || setweight(to_tsvector(${cfg}, left(u.folded, 2000)), 'C')`
      : sql.fragment`u.rank_tsv::tsvector`;
    await pool.query(sql.unsafe`
      INSERT INTO search_passages AS s (id, kind, document_id, workspace_id, thread_id, text, tsv, rank_tsv, version)
      SELECT u.id, u.kind, u.document_id, u.workspace_id, u.thread_id, u.text, ${tsv}, ${rankTsv}, u.version
      FROM unnest(
        ${sql.array(
          col((r) => r.p.id),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.p.kind),
          'text',
        )},
        ${sql.array(
          col((r) => r.p.documentId),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.p.workspaceId),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.p.threadId),
          'uuid',
        )},
        ${sql.array(
          col((r) => r.text),
          'text',
        )},
        ${sql.array(
          col((r) => r.vector),
          'text',
        )},
        ${sql.array(
          col((r) => r.rankVector),
          'text',
        )},
        ${sql.array(
          col((r) => Math.trunc(r.p.version)),
          'int8',
        )},
        ${sql.array(
          col((r) => (extraLexemes ? fold(r.text.slice(0, CONFIG_TEXT_CHARS)) : '')),
          'text',
        )}
      ) AS u(id, kind, document_id, workspace_id, thread_id, text, tsv, rank_tsv, version, folded)
      WHERE NOT EXISTS (
        SELECT 1 FROM search_removed_documents r WHERE r.id IN (u.id, u.document_id) OR r.id = u.thread_id)
      ON CONFLICT (id) DO UPDATE SET
        text = EXCLUDED.text, tsv = EXCLUDED.tsv, rank_tsv = EXCLUDED.rank_tsv, version = EXCLUDED.version,
        indexed_at = now()
      WHERE EXCLUDED.version >= s.version`);
  }

  async function removePassages({ ids = [], threadIds = [], documentIds = [] }: PassageRemoval): Promise<void> {
    // Documents leave their own tombstones when they are removed (remove()); passages and threads here.
    const gone = [...new Set([...ids, ...threadIds])];
    if (gone.length + documentIds.length === 0) return;
    await pool.transaction(async (tx) => {
      if (gone.length > 0)
        await tx.query(sql.unsafe`
          INSERT INTO search_removed_documents (id) SELECT unnest(${sql.array(gone, 'uuid')}) ON CONFLICT (id) DO NOTHING`);
      await tx.query(sql.unsafe`
        DELETE FROM search_passages
        WHERE id = ANY(${sql.array([...ids], 'uuid')}) OR thread_id = ANY(${sql.array([...threadIds], 'uuid')})
           OR document_id = ANY(${sql.array([...documentIds], 'uuid')})`);
    });
  }

  async function passageWorkspacesOf({
    ids = [],
    threadIds = [],
    documentIds = [],
  }: PassageRemoval): Promise<string[]> {
    if (ids.length + threadIds.length + documentIds.length === 0) return [];
    const rows = await pool.anyFirst(sql.type(z.object({ workspace_id: z.string() }))`
      SELECT DISTINCT workspace_id FROM search_passages
      WHERE id = ANY(${sql.array([...ids], 'uuid')}) OR thread_id = ANY(${sql.array([...threadIds], 'uuid')})
         OR document_id = ANY(${sql.array([...documentIds], 'uuid')})`);
    return [...rows];
  }

  async function listPassageIds(page: PassageIdPage): Promise<string[]> {
    const rows = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM search_passages
      WHERE kind = ${page.kind}
        AND ${page.workspaceId ? sql.fragment`workspace_id = ${page.workspaceId}` : sql.fragment`true`}
        AND ${page.after ? sql.fragment`id > ${page.after}` : sql.fragment`true`}
      ORDER BY id LIMIT ${page.limit}`);
    return [...rows];
  }

  async function listIds(page: IdPage): Promise<string[]> {
    const rows = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM search_documents
      WHERE ${page.workspaceId ? sql.fragment`workspace_id = ${page.workspaceId}` : sql.fragment`true`}
        AND ${page.after ? sql.fragment`id > ${page.after}` : sql.fragment`true`}
      ORDER BY id LIMIT ${page.limit}`);
    return [...rows];
  }

  async function workspacesOf(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await pool.anyFirst(sql.type(z.object({ workspace_id: z.string() }))`
      SELECT DISTINCT workspace_id FROM search_documents WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
    return [...rows];
  }

  return {
    name: 'postgres',
    upsert,
    patch,
    remove,
    removeWorkspace,
    listIds,
    workspacesOf,
    upsertPassages,
    removePassages,
    passageWorkspacesOf,
    listPassageIds,
    search: postgresSearch(reads, tsConfig),
    async health() {
      await pool.query(sql.unsafe`SELECT 1 FROM search_documents LIMIT 1`);
    },
    // The pool is the service's: the runner closes it.
    async close() {},
  };
}
