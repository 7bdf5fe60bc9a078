import { randomUUID } from 'node:crypto';
import { errors } from '@elastic/elasticsearch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ElasticsearchBulkError,
  ElasticsearchEngine,
  SUPPORTED_ELASTICSEARCH_MAJOR,
} from '../../src/engines/elasticsearch/index.js';
import type { IndexedDocument } from '../../src/engines/engine.js';
import {
  fixture,
  type RecordedElasticsearch,
  type RecordedRequest,
  startRecordedElasticsearch,
} from './recorded-server.js';

/**
 * The Elasticsearch engine with the real client against recorded Elasticsearch answers: what it
 * sends (paths, query strings, JSON and NDJSON bodies) and what it makes of the answers.
 */

const alias = 'wt_es_test-search-documents';
const index = `${alias}-000001`;
const ALIAS_PATH = /^\/wt_es_test-search-documents$/;
const TEMPLATE_PATH = /^\/_index_template\/wt_es_test-search-documents$/;
const BULK_PATH = /^\/_bulk$/;
const SEARCH_PATH = /^\/wt_es_test-search-documents\/_search$/;

let es: RecordedElasticsearch;
const engines: ElasticsearchEngine[] = [];

beforeEach(async () => {
  es = await startRecordedElasticsearch();
});

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
  await es.close();
});

/** Starts an engine whose index already exists (the answers of a second start). */
async function startEngine(refresh?: boolean | 'wait_for'): Promise<ElasticsearchEngine> {
  es.on('PUT', TEMPLATE_PATH, { status: 200, body: fixture('acknowledged') });
  es.on('HEAD', ALIAS_PATH, { status: 200 });
  const engine = await ElasticsearchEngine.start({ url: es.url, alias, refresh });
  engines.push(engine);
  return engine;
}

function doc(overrides: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    id: randomUUID(),
    workspaceId: randomUUID(),
    parentId: null,
    title: 'Subpages',
    icon: null,
    plainText: 'How to nest pages',
    archived: false,
    version: 1_764_000_000_000,
    ...overrides,
  };
}

/** The bulk actions of a request as [action line, body line] pairs. */
function actions(request: RecordedRequest): Array<{ action: string; meta: any; body: any }> {
  const out: Array<{ action: string; meta: any; body: any }> = [];
  for (let i = 0; i < request.lines.length; i += 2) {
    const [action, meta] = Object.entries(request.lines[i])[0] as [string, any];
    out.push({ action, meta, body: request.lines[i + 1] });
  }
  return out;
}

/** The word a query item clause looks for (its first, title-word tier). */
const firstWord = (clause: any): string => clause.bool.should[0].constant_score.filter.match.title.query;

describe('start: index template and index', () => {
  it('installs a template with the CJK bigram analyzer, trigram and exact sub-fields, then creates the index behind the alias', async () => {
    es.on('PUT', TEMPLATE_PATH, { status: 200, body: fixture('acknowledged') });
    es.on('HEAD', ALIAS_PATH, { status: 404 });
    es.on('PUT', /^\/wt_es_test-search-documents-000001$/, { status: 200, body: fixture('create-index', { index }) });
    engines.push(await ElasticsearchEngine.start({ url: es.url, alias }));

    expect(es.unexpected).toEqual([]);
    expect(es.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /_index_template/${alias}`,
      `HEAD /${alias}`,
      `PUT /${index}`,
    ]);
    const template = es.requests[0].body;
    expect(template.index_patterns).toEqual([`${alias}-*`]);
    expect(template.priority).toBeGreaterThan(200);
    const { settings, mappings } = template.template;
    expect(settings.number_of_shards).toBe(1);
    expect(settings.analysis.analyzer.wiki_text).toEqual({
      type: 'custom',
      tokenizer: 'standard',
      filter: ['cjk_width', 'lowercase', 'asciifolding', 'cjk_bigram'],
    });
    expect(settings.analysis.analyzer.wiki_trigram).toEqual({
      type: 'custom',
      tokenizer: 'wiki_trigram',
      filter: ['cjk_width', 'lowercase', 'asciifolding'],
    });
    expect(settings.analysis.tokenizer.wiki_trigram).toEqual({
      type: 'ngram',
      min_gram: 3,
      max_gram: 3,
      token_chars: ['letter', 'digit'],
    });
    expect(settings.analysis.normalizer.wiki_exact.filter).toEqual(['cjk_width', 'lowercase', 'asciifolding']);
    expect(settings.analysis.normalizer.wiki_exact.char_filter).toEqual(['wiki_words', 'wiki_trim']);
    // Everything but letters, digits and marks becomes one space, then the outer spaces go.
    const { wiki_words, wiki_trim } = settings.analysis.char_filter;
    const key = ` "Release   notes!" `
      .replace(new RegExp(wiki_words.pattern, 'gu'), wiki_words.replacement)
      .replace(new RegExp(wiki_trim.pattern, 'g'), wiki_trim.replacement);
    expect(key).toBe('Release notes');
    expect(mappings.dynamic).toBe('strict');
    for (const field of ['title', 'plainText']) {
      expect(mappings.properties[field]).toMatchObject({
        type: 'text',
        analyzer: 'wiki_text',
        fields: { ngram: { type: 'text', analyzer: 'wiki_trigram' } },
      });
    }
    expect(mappings.properties.title.fields.exact).toMatchObject({ type: 'keyword', normalizer: 'wiki_exact' });
    expect(mappings.properties.workspaceId).toEqual({ type: 'keyword' });
    expect(mappings.properties.archived).toEqual({ type: 'boolean' });
    expect(mappings.properties.textVersion).toMatchObject({ type: 'long' });
    expect(mappings.properties.stateVersion).toMatchObject({ type: 'long' });
    expect(mappings.properties.removed).toEqual({ type: 'boolean' });
    // The concrete index takes settings and mappings from the template; the request adds the alias.
    expect(es.requests[2].body).toEqual({ aliases: { [alias]: { is_write_index: true } } });
  });

  it('is idempotent: a second start replaces the template and leaves the existing index alone', async () => {
    await startEngine();
    expect(es.unexpected).toEqual([]);
    expect(es.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /_index_template/${alias}`,
      `HEAD /${alias}`,
    ]);
  });

  it('starts when another replica created the index between its check and its create', async () => {
    es.on('PUT', TEMPLATE_PATH, { status: 200, body: fixture('acknowledged') });
    es.on('HEAD', ALIAS_PATH, { status: 404 });
    es.on('PUT', /^\/wt_es_test-search-documents-000001$/, {
      status: 400,
      body: fixture('error-resource-already-exists', { index }),
    });
    const engine = await ElasticsearchEngine.start({ url: es.url, alias });
    engines.push(engine);
    expect(engine.name).toBe('elasticsearch');
    expect(es.sent('PUT', /-000001$/)).toHaveLength(1);
  });

  it('fails to start when Elasticsearch refuses the template, and closes its client', async () => {
    es.on('PUT', TEMPLATE_PATH, {
      status: 401,
      body: fixture('error-security', { path: `/_index_template/${alias}` }),
    });
    const failure = await ElasticsearchEngine.start({ url: es.url, alias }).catch((error) => error);
    expect(failure).toBeInstanceOf(errors.ResponseError);
    expect(failure.statusCode).toBe(401);
    expect(failure.body.error.type).toBe('security_exception');
    expect(es.sent('HEAD', ALIAS_PATH)).toEqual([]);
  });
});

describe('the server version it speaks to', () => {
  it(`asks for Elasticsearch ${SUPPORTED_ELASTICSEARCH_MAJOR} answers on every request (compatible-with), JSON and NDJSON alike`, async () => {
    const engine = await startEngine();
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-removes') });
    await engine.remove([randomUUID()]).catch(() => undefined);
    const compatible = `compatible-with=${SUPPORTED_ELASTICSEARCH_MAJOR}`;
    expect(es.requests.length).toBeGreaterThanOrEqual(3);
    for (const request of es.requests) {
      expect(String(request.headers.accept)).toContain(compatible);
      if (request.raw !== '') expect(String(request.headers['content-type'])).toContain(compatible);
    }
  });

  it('says which servers it supports when an older one refuses those headers (400 media_type_header_exception)', async () => {
    es.on('PUT', TEMPLATE_PATH, { status: 400, body: fixture('error-media-type') });
    const failure = await ElasticsearchEngine.start({ url: es.url, alias }).catch((error) => error);
    expect(failure.message).toBe(
      `Elasticsearch refused the client's compatible-with=${SUPPORTED_ELASTICSEARCH_MAJOR} headers: this service supports Elasticsearch ${SUPPORTED_ELASTICSEARCH_MAJOR}.x servers only (an older server refuses them; services/search/README.md)`,
    );
    expect(failure.cause).toBeInstanceOf(errors.ResponseError);
    expect(es.sent('HEAD', ALIAS_PATH)).toEqual([]);
  });
});

describe('writes', () => {
  it('upserts in one bulk request: a scripted upsert per document guarding text and state by version, created and older-ignored (noop) items accepted', async () => {
    const engine = await startEngine('wait_for');
    const first = doc({
      title: 'Café <menu>',
      icon: '☕',
      parentId: randomUUID(),
      plainText: '深度学习模型需要大量训练数据',
    });
    const second = doc({ archived: true, version: 1_764_000_000_500 });
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-upserts', { index, id1: first.id, id2: second.id }) });

    await engine.upsert([first, second]);

    expect(es.unexpected).toEqual([]);
    const [bulk] = es.sent('POST', BULK_PATH);
    expect(bulk.headers['content-type']).toContain('application/vnd.elasticsearch+x-ndjson');
    expect(bulk.query.get('refresh')).toBe('wait_for');
    const sent = actions(bulk);
    expect(sent).toHaveLength(2);
    for (const [i, document] of [first, second].entries()) {
      const { action, meta, body } = sent[i];
      expect(action).toBe('update');
      expect(meta).toEqual({ _index: alias, _id: document.id, retry_on_conflict: 5 });
      expect(body.scripted_upsert).toBe(true);
      expect(body.upsert).toEqual({});
      expect(body.script.lang).toBe('painless');
      const { version, ...fields } = document;
      expect(body.script.params).toEqual({ version, doc: fields });
    }
    const script: string = sent[0].body.script.source;
    // Text and state each move only forward; a tombstone or a write older in both does nothing.
    expect(script).toContain('v >= s.textVersion');
    expect(script).toContain('v >= s.stateVersion');
    expect(script).toContain('if (text) { s.title = d.title; s.plainText = d.plainText; s.textVersion = v }');
    expect(script).toContain(
      'if (state) { s.parentId = d.parentId; s.icon = d.icon; s.archived = d.archived; s.stateVersion = v }',
    );
    expect(script).toContain('if (s.removed == true || (!text && !state)) { ctx.op = "noop" }');
  });

  it('cuts large writes into several bulk requests (500 actions at most in one)', async () => {
    const engine = await startEngine();
    const documents = Array.from({ length: 620 }, (_, i) => doc({ version: i + 1 }));
    es.on('POST', BULK_PATH, (request) => ({
      status: 200,
      body: {
        errors: false,
        took: 1,
        items: actions(request).map(({ meta }) => ({
          update: { _index: index, _id: meta._id, _version: 1, result: 'created', status: 201 },
        })),
      },
    }));

    await engine.upsert(documents);

    const bulks = es.sent('POST', BULK_PATH);
    expect(bulks.map((b) => actions(b).length)).toEqual([500, 120]);
    expect(bulks.flatMap((b) => actions(b).map((a) => a.meta._id))).toEqual(documents.map((d) => d.id));
    expect(bulks[0].query.get('refresh')).toBe('false');
  });

  it('patches only the given state fields (and a title) under the same versions, with no upsert; a patch of an unknown id (404 document_missing) is answered, not failed', async () => {
    const engine = await startEngine();
    const [known, unknown] = [randomUUID(), randomUUID()];
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-patches', { index, id1: known, id2: unknown }) });

    const missing = await engine.patch([
      { id: known, archived: true, version: 20 },
      { id: unknown, parentId: null, title: 'Moved', icon: null, version: 21 },
    ]);
    expect(missing).toEqual([unknown]);

    const sent = actions(es.sent('POST', BULK_PATH)[0]);
    expect(sent[0].meta).toEqual({ _index: alias, _id: known, retry_on_conflict: 5 });
    expect(sent[0].body).toEqual({
      script: {
        source: expect.stringContaining('if (state) { s.putAll(params.state); s.stateVersion = v }'),
        lang: 'painless',
        params: { state: { archived: true }, title: null, version: 20 },
      },
    });
    expect(sent[1].body.script.params).toEqual({ state: { parentId: null, icon: null }, title: 'Moved', version: 21 });
    expect(sent[1].body.script.source).toContain('if (text) { s.title = params.title; s.textVersion = v }');
    expect(sent[1].body).not.toHaveProperty('upsert');
  });

  it('removes by writing tombstones in bulk (also for ids never indexed), so a late create cannot bring a document back', async () => {
    const engine = await startEngine();
    const [held, missing] = [randomUUID(), randomUUID()];
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-removes', { index, id1: held, id2: missing }) });

    await engine.remove([held, missing]);

    const sent = actions(es.sent('POST', BULK_PATH)[0]);
    expect(sent.map((a) => [a.action, a.meta._id, a.body.script.params, a.body.scripted_upsert])).toEqual([
      ['update', held, { id: held }, true],
      ['update', missing, { id: missing }, true],
    ]);
    expect(sent[0].body.script.source).toContain('ctx._source.removed = true; ctx._source.archived = true;');
    expect(sent[0].body.script.source).toContain('ctx._source.clear()');
  });

  it('fails a write whose item still conflicted after its retries (409), so the event is redelivered and the guard decides then', async () => {
    const engine = await startEngine();
    const [a, b] = [doc(), doc()];
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-version-conflict', { index, id1: a.id, id2: b.id }) });

    const failure = await engine.upsert([a, b]).catch((error) => error);

    expect(failure).toBeInstanceOf(ElasticsearchBulkError);
    expect(failure.failures).toEqual([
      {
        id: b.id,
        action: 'update',
        status: 409,
        type: 'version_conflict_engine_exception',
        reason: expect.stringContaining('version conflict'),
      },
    ]);
  });

  it('surfaces a document Elasticsearch cannot parse (400 item) and a refused bulk request (429)', async () => {
    const engine = await startEngine();
    const a = doc();
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-parsing-error', { index, id1: a.id }) }, 1);
    const parsing = await engine.upsert([a]).catch((error) => error);
    expect(parsing).toBeInstanceOf(ElasticsearchBulkError);
    expect(parsing.message).toContain('document_parsing_exception');

    es.on('POST', BULK_PATH, { status: 429, body: fixture('error-too-many-requests') });
    const refused = await engine.remove([a.id]).catch((error) => error);
    expect(refused).toBeInstanceOf(errors.ResponseError);
    expect(refused.statusCode).toBe(429);
  });

  it('purges a workspace with delete_by_query on its id (conflicts proceed) and surfaces the failures Elasticsearch reports', async () => {
    const engine = await startEngine('wait_for');
    const workspaceId = randomUUID();
    const DBQ = /^\/wt_es_test-search-documents\/_delete_by_query$/;
    es.on('POST', DBQ, { status: 200, body: fixture('delete-by-query') }, 1);

    await engine.removeWorkspace(workspaceId);

    const [purge] = es.sent('POST', DBQ);
    expect(purge.body).toEqual({
      query: { bool: { filter: [{ term: { workspaceId } }], must_not: [{ term: { removed: true } }] } },
    });
    expect(purge.query.get('conflicts')).toBe('proceed');
    expect(purge.query.get('refresh')).toBe('true');

    es.on('POST', DBQ, { status: 200, body: fixture('delete-by-query-failures', { index, id1: randomUUID() }) });
    await expect(engine.removeWorkspace(workspaceId)).rejects.toThrow(/es_rejected_execution_exception/);
  });
});

describe('search', () => {
  it('sends match queries on the words, trigram sub-fields and an exact-title boost, filtered to the workspace and unarchived, with <mark> HTML-encoded highlights', async () => {
    const engine = await startEngine();
    const workspaceId = randomUUID();
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-cjk', { index, id1: randomUUID() }) });

    await engine.search({ workspaceId, query: '  Pages ', limit: 7 });

    expect(es.unexpected).toEqual([]);
    const { body } = es.sent('POST', SEARCH_PATH)[0];
    expect(body.size).toBe(7);
    expect(body._source).toEqual(['id', 'title', 'icon', 'parentId']);
    expect(body.query.bool.filter).toEqual([{ term: { workspaceId } }, { term: { archived: false } }]);
    const [word] = body.query.bool.must;
    expect(word.bool.minimum_should_match).toBe(1);
    const tiers: Record<string, number> = {};
    const bm25: Record<string, number> = {};
    for (const clause of word.bool.should) {
      const match = clause.constant_score ? clause.constant_score.filter.match : clause.match;
      const [field, spec] = Object.entries(match)[0] as [string, any];
      expect(spec).toMatchObject({ query: 'Pages', operator: 'and' });
      if (clause.constant_score) tiers[field] = clause.constant_score.boost;
      else bm25[field] = spec.boost;
    }
    // Title words above parts of title words above content words above parts of content words.
    expect(Object.keys(tiers)).toEqual(['title', 'title.ngram', 'plainText', 'plainText.ngram']);
    const order = Object.values(tiers);
    expect([...order].sort((a, b) => b - a)).toEqual(order);
    // BM25 orders within a tier; a term scores at most about 2.2 × idf (idf < 15 even at 10^6
    // documents), so a word's BM25 share cannot lift a document over the next tier.
    expect(Object.keys(bm25)).toEqual(['title', 'plainText']);
    const gaps = order.slice(1).map((value, i) => order[i] - value);
    for (const boost of Object.values(bm25)) expect(boost * 2.2 * 15 * 2).toBeLessThanOrEqual(Math.min(...gaps));
    const [exact] = body.query.bool.should;
    expect(exact.constant_score.filter).toEqual({ match: { 'title.exact': { query: 'Pages' } } });
    expect(exact.constant_score.boost).toBeGreaterThan(order[0] * 2);
    expect(body.query.bool.must_not).toEqual([]);
    expect(body.highlight).toMatchObject({
      pre_tags: ['<mark>'],
      post_tags: ['</mark>'],
      encoder: 'html',
      fields: {
        title: { number_of_fragments: 0, matched_fields: ['title', 'title.ngram'] },
        plainText: { number_of_fragments: 1, matched_fields: ['plainText', 'plainText.ngram'] },
      },
    });
    // Long texts are highlighted up to a cap instead of failing the search.
    expect(body.highlight.max_analyzed_offset).toBeGreaterThan(0);
  });

  it('reads websearch syntax: a quoted phrase, -word excluded, "or" between two words', async () => {
    const engine = await startEngine();
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-cjk', { index, id1: randomUUID() }) });

    await engine.search({ workspaceId: randomUUID(), query: '"release notes" -draft cats or dogs', limit: 20 });

    const { must, must_not } = es.sent('POST', SEARCH_PATH)[0].body.query.bool;
    expect(must).toHaveLength(2);
    expect(must[0].bool.should).toEqual([
      {
        constant_score: { filter: { match_phrase: { title: { query: 'release notes' } } }, boost: expect.any(Number) },
      },
      {
        constant_score: {
          filter: { match_phrase: { plainText: { query: 'release notes' } } },
          boost: expect.any(Number),
        },
      },
      { match_phrase: { title: { query: 'release notes', boost: expect.any(Number) } } },
      { match_phrase: { plainText: { query: 'release notes', boost: expect.any(Number) } } },
    ]);
    const either = must[1].bool;
    expect(either.minimum_should_match).toBe(1);
    expect(either.should.map((clause: any) => firstWord(clause))).toEqual(['cats', 'dogs']);
    expect(must_not).toEqual([
      {
        bool: {
          should: [{ match: { title: { query: 'draft' } } }, { match: { plainText: { query: 'draft' } } }],
          minimum_should_match: 1,
        },
      },
    ]);
  });

  it('turns hostile input into plain match text (no query_string), and asks nothing for a query with nothing to find', async () => {
    const engine = await startEngine();
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-cjk', { index, id1: randomUUID() }) });
    const workspaceId = randomUUID();

    await engine.search({ workspaceId, query: `&|!:*() title:x AND ${'x'.repeat(10_000)}`, limit: 20 });
    const { body } = es.sent('POST', SEARCH_PATH)[0];
    expect(JSON.stringify(body)).not.toMatch(/query_string|"regexp"|"wildcard"/);
    // Punctuation alone is dropped; the rest is text for the analyzer, `title:x` included.
    expect(body.query.bool.must.map(firstWord)).toEqual(['title:x', 'AND', 'x'.repeat(10_000)]);

    for (const query of ['"', '""', '   ', '-alone', '- "', '&|!:*()', '\u0000 -']) {
      expect(await engine.search({ workspaceId, query, limit: 20 })).toEqual([]);
    }
    expect(es.sent('POST', SEARCH_PATH)).toHaveLength(1);
  });

  it('maps hits best first: title highlight gives matchField title, else the content passage; snippets stay HTML-escaped except <mark>', async () => {
    const engine = await startEngine();
    const [id1, id2, id3, parent] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-hits', { index, id1, id2, id3, parent }) });

    const hits = await engine.search({ workspaceId: randomUUID(), query: 'pages', limit: 20 });

    expect(hits).toEqual([
      {
        id: id1,
        title: 'Subpages & <layout>',
        icon: '📄',
        parentId: parent,
        snippet: '<mark>Subpages</mark> &amp; &lt;layout&gt;',
        matchField: 'title',
      },
      {
        id: id2,
        title: 'Release notes',
        icon: null,
        parentId: null,
        snippet:
          'Nested <mark>pages</mark> now open faster; 3 &lt; 4 &amp; the tree &#x27;remembers&#x27; what was open.',
        matchField: 'content',
      },
      // No highlight at all: the title, escaped.
      {
        id: id3,
        title: '<b>Untitled</b>',
        icon: null,
        parentId: null,
        snippet: '&lt;b&gt;Untitled&lt;/b&gt;',
        matchField: 'content',
      },
    ]);
    for (const hit of hits) {
      expect(hit.snippet.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
    }
  });

  it('surfaces an error Elasticsearch answers (400 search_phase_execution_exception)', async () => {
    const engine = await startEngine();
    es.on('POST', SEARCH_PATH, { status: 400, body: fixture('error-search-phase', { index }) });
    const failure = await engine.search({ workspaceId: randomUUID(), query: 'x', limit: 5 }).catch((error) => error);
    expect(failure).toBeInstanceOf(errors.ResponseError);
    expect(failure.body.error.type).toBe('search_phase_execution_exception');
  });
});

describe('id pages, health, close', () => {
  it('lists ids ascending on the id keyword, continuing after the last id, per workspace or all', async () => {
    const engine = await startEngine();
    const [id1, id2, workspaceId] = [randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('id-page', { index, id1, id2 }) });

    expect(await engine.listIds({ workspaceId, after: '00000000-0000-0000-0000-000000000000', limit: 2 })).toEqual([
      id1,
      id2,
    ]);
    await engine.listIds({ limit: 1000 });

    const [page, all] = es.sent('POST', SEARCH_PATH).map((r) => r.body);
    expect(page).toEqual({
      size: 2,
      track_total_hits: false,
      _source: false,
      query: { bool: { filter: [{ term: { workspaceId } }], must_not: [{ term: { removed: true } }] } },
      sort: [{ id: 'asc' }],
      search_after: ['00000000-0000-0000-0000-000000000000'],
    });
    expect(all.query).toEqual({ bool: { filter: [], must_not: [{ term: { removed: true } }] } });
    expect(all).not.toHaveProperty('search_after');
  });

  it('names the workspaces of ids with one real-time mget (tombstones and unknown ids name none), nothing asked for no ids', async () => {
    const engine = await startEngine();
    const MGET_PATH = /^\/wt_es_test-search-documents\/_mget$/;
    const [id1, id2, id3, workspace1, workspace2] = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    es.on('POST', MGET_PATH, {
      status: 200,
      body: fixture('mget-workspaces', { index, id1, id2, id3, workspace1, workspace2 }),
    });

    expect(await engine.workspacesOf([])).toEqual([]);
    expect(await engine.workspacesOf([id1, id2, id3])).toEqual([workspace1]);

    expect(es.unexpected).toEqual([]);
    const [sent] = es.sent('POST', MGET_PATH);
    expect(sent.body).toEqual({ ids: [id1, id2, id3] });
    expect(sent.query.get('_source')).toBe('workspaceId,removed');
    expect(es.requests.filter((r) => MGET_PATH.test(r.path))).toHaveLength(1);
  });

  it('is healthy when the cluster answers for its index, not when the index is red or the node is gone', async () => {
    const engine = await startEngine();
    const HEALTH = /^\/_cluster\/health\/wt_es_test-search-documents$/;
    es.on('GET', HEALTH, { status: 200, body: fixture('cluster-health-green') }, 1);
    await engine.health();
    expect(es.sent('GET', HEALTH)[0].query.get('timeout')).toBe('2s');

    es.on('GET', HEALTH, { status: 200, body: fixture('cluster-health-red') }, 1);
    await expect(engine.health()).rejects.toThrow(/red/);

    await es.close();
    await expect(engine.health()).rejects.toBeInstanceOf(errors.ConnectionError);
  });

  it('closes its client: no request leaves after close', async () => {
    const started = await startEngine();
    engines.splice(engines.indexOf(started), 1);
    await started.close();
    const before = es.requests.length;
    await expect(started.search({ workspaceId: randomUUID(), query: 'x', limit: 1 })).rejects.toThrow();
    expect(es.requests.length).toBe(before);
  });
});
