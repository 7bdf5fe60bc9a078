import { randomUUID } from 'node:crypto';
import { errors } from '@elastic/elasticsearch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ElasticsearchBulkError,
  ElasticsearchEngine,
  SUPPORTED_ELASTICSEARCH_MAJOR,
} from '../../src/engines/elasticsearch/index.js';
import type { IndexedDocument, IndexedPassage } from '../../src/engines/engine.js';
import {
  fixture,
  type RecordedElasticsearch,
  type RecordedRequest,
  startRecordedElasticsearch,
} from './recorded-server.js';

/**
 * The Elasticsearch engine with the real client against recorded Elasticsearch answers: what it
 * sends (paths, query strings, JSON and NDJSON bodies) and what it makes of the answers.
 * Not a live server: the answers (fixtures/*.json) are hand-written in the Elasticsearch 9 response
 * shapes of the reference, never captured from a node; how a real node answers these requests is
 * what the shared contract checks when ELASTICSEARCH_URL is set (contract.test.ts).
 */

const alias = 'wt_es_test-search-documents';
const index = `${alias}-000001`;
const ALIAS_PATH = /^\/wt_es_test-search-documents$/;
const TEMPLATE_PATH = /^\/_index_template\/wt_es_test-search-documents$/;
const BULK_PATH = /^\/_bulk$/;
const SEARCH_PATH = /^\/wt_es_test-search-documents\/_search$/;
const MAPPING_PATH = /^\/wt_es_test-search-documents\/_mapping$/;
const REFRESH_PATH = /^\/wt_es_test-search-documents\/_refresh$/;
const DBQ_PATH = /^\/wt_es_test-search-documents\/_delete_by_query$/;
const MGET_PATH = /^\/wt_es_test-search-documents\/_mget$/;

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
  es.on('PUT', MAPPING_PATH, { status: 200, body: fixture('acknowledged') });
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
    createdBy: randomUUID(),
    updatedAt: 1_763_999_000_000,
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

/** The two ways a search matches a document: its own title or text, and its passages (has_child). */
const branches = (body: any): any[] => body.query.bool.must[0].bool.should;

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
    // Revision 2: the filters' fields, and passages as children of their document (has_child).
    expect(mappings.properties.createdBy).toEqual({ type: 'keyword' });
    expect(mappings.properties.updatedAt).toEqual({ type: 'date', format: 'epoch_millis' });
    expect(mappings.properties.relation).toEqual({ type: 'join', relations: { document: 'passage' } });
    for (const field of ['passageKind', 'documentId', 'threadId']) {
      expect(mappings.properties[field]).toEqual({ type: 'keyword' });
    }
    expect(mappings.properties.text).toMatchObject({
      type: 'text',
      analyzer: 'wiki_text',
      fields: { ngram: { type: 'text', analyzer: 'wiki_trigram' } },
    });
    // The concrete index takes settings and mappings from the template; the request adds the alias.
    expect(es.requests[2].body).toEqual({ aliases: { [alias]: { is_write_index: true } } });
  });

  it("is idempotent: a second start replaces the template and only adds the newer revision's fields to the existing index", async () => {
    await startEngine();
    expect(es.unexpected).toEqual([]);
    expect(es.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /_index_template/${alias}`,
      `HEAD /${alias}`,
      `PUT /${alias}/_mapping`,
    ]);
    expect(es.requests[0].body._meta.revision).toBe(2);
    // Only fields (adding is the one change Elasticsearch makes in place), never settings.
    const added = es.requests[2].body;
    expect(Object.keys(added)).toEqual(['properties']);
    expect(Object.keys(added.properties).sort()).toEqual(
      ['createdBy', 'documentId', 'passageKind', 'relation', 'text', 'threadId', 'updatedAt'].sort(),
    );
    // The template holds them too, for the indices it makes.
    expect(es.requests[0].body.template.mappings.properties).toMatchObject(added.properties);
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
    expect(script).toContain('if (s.removed == true || (!text && !state && !author && !later)) { ctx.op = "noop" }');
    // The creator is kept once known; the last change only moves forward; a document is a join parent.
    expect(script).toContain('boolean author = d.createdBy != null && d.createdBy != s.createdBy;');
    expect(script).toContain(
      'boolean later = d.updatedAt != null && (s.updatedAt == null || d.updatedAt > s.updatedAt);',
    );
    expect(script).toContain('s.relation = "document";');
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
    await engine.patch([{ id: known, archived: false, updatedAt: 1_764_000_000_900, version: 22 }]);
    const later = actions(es.sent('POST', BULK_PATH)[1])[0].body.script;
    expect(later.params.updatedAt).toBe(1_764_000_000_900);
    expect(later.source).toContain('params.updatedAt > s.updatedAt)) { s.updatedAt = params.updatedAt }');
    expect(missing).toEqual([unknown]);

    const sent = actions(es.sent('POST', BULK_PATH)[0]);
    expect(sent[0].meta).toEqual({ _index: alias, _id: known, retry_on_conflict: 5 });
    expect(sent[0].body).toEqual({
      script: {
        source: expect.stringContaining('if (state) { s.putAll(params.state); s.stateVersion = v }'),
        lang: 'painless',
        params: { state: { archived: true }, title: null, updatedAt: null, version: 20 },
      },
    });
    expect(sent[1].body.script.params).toEqual({
      state: { parentId: null, icon: null },
      title: 'Moved',
      updatedAt: null,
      version: 21,
    });
    expect(sent[1].body.script.source).toContain('if (text) { s.title = params.title; s.textVersion = v }');
    expect(sent[1].body).not.toHaveProperty('upsert');
  });

  it('removes by writing tombstones in bulk (also for ids never indexed), so a late create cannot bring a document back, then deletes their passages', async () => {
    const engine = await startEngine();
    const [held, missing] = [randomUUID(), randomUUID()];
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-removes', { index, id1: held, id2: missing }) });
    es.on('GET', REFRESH_PATH, { status: 200, body: fixture('refresh') });
    es.on('POST', DBQ_PATH, { status: 200, body: fixture('delete-by-query') });

    await engine.remove([held, missing]);

    expect(es.unexpected).toEqual([]);
    expect(es.requests.slice(3).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /_bulk',
      // delete_by_query sees what the last refresh made searchable: a passage written just before counts too.
      `GET /${alias}/_refresh`,
      `POST /${alias}/_delete_by_query`,
    ]);
    const [purge] = es.sent('POST', DBQ_PATH);
    expect(purge.body.query).toEqual({
      bool: {
        filter: [{ exists: { field: 'passageKind' } }],
        should: [{ terms: { documentId: [held, missing] } }],
        minimum_should_match: 1,
        must_not: [{ term: { removed: true } }],
      },
    });
    expect(purge.query.get('conflicts')).toBe('proceed');

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
    const refused = await engine.upsert([a]).catch((error) => error);
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
    expect(body.from).toBe(0);
    // Every matching document counted (X-Total-Count), equal scores in id order for stable pages.
    expect(body.track_total_hits).toBe(true);
    expect(body.sort).toEqual([{ _score: { order: 'desc' } }, { id: { order: 'asc' } }]);
    expect(body._source).toEqual(['id', 'title', 'icon', 'parentId']);
    expect(body.query.bool.filter).toEqual([{ term: { workspaceId } }, { term: { archived: false } }]);
    // A document matches by its own title or text, or through a passage (has_child).
    const [own, passages] = branches(body);
    expect(own.bool._name).toBe('document');
    expect(passages.has_child.type).toBe('passage');
    const [word] = own.bool.must;
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
    expect(own.bool.must_not).toEqual([]);
    // The highlight marks the document's own match only, never a passage's words.
    expect(body.highlight.highlight_query).toEqual({ bool: { must: own.bool.must } });
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

    const [own, passages] = branches(es.sent('POST', SEARCH_PATH)[0].body);
    const { must, must_not } = own.bool;
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
    // A passage is read the same way, in its own text.
    const inPassage = passages.has_child.query.bool;
    expect(inPassage.must).toHaveLength(2);
    expect(inPassage.must[0].bool.should[0]).toEqual({
      constant_score: { filter: { match_phrase: { text: { query: 'release notes' } } }, boost: expect.any(Number) },
    });
    expect(inPassage.must_not).toEqual([
      { bool: { should: [{ match: { text: { query: 'draft' } } }], minimum_should_match: 1 } },
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
    expect(branches(body)[0].bool.must.map(firstWord)).toEqual(['title:x', 'AND', 'x'.repeat(10_000)]);

    for (const query of ['"', '""', '   ', '-alone', '- "', '&|!:*()', '\u0000 -']) {
      expect(await engine.search({ workspaceId, query, limit: 20 })).toEqual({ hits: [], total: 0 });
    }
    expect(es.sent('POST', SEARCH_PATH)).toHaveLength(1);
  });

  it('maps hits best first: title highlight gives matchField title, else the content passage; snippets stay HTML-escaped except <mark>', async () => {
    const engine = await startEngine();
    const [id1, id2, id3, parent] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-hits', { index, id1, id2, id3, parent }) });

    const { hits, total } = await engine.search({ workspaceId: randomUUID(), query: 'pages', limit: 20 });

    expect(total).toBe(3);
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

describe('pages, filters and passages in a search (ARCHITECTURE 5.20)', () => {
  /** Answers the subtree walk's level requests from `levels` (parent ids → children), the search with `answer`. */
  function answerSearches(levels: Map<string, string[]>, answer: unknown) {
    es.on('POST', SEARCH_PATH, (request) => {
      const parents = request.body.query.bool.filter.find((clause: any) => clause.terms?.parentId)?.terms.parentId;
      if (!parents) return { status: 200, body: answer };
      const children = parents.flatMap((parent: string) => levels.get(parent) ?? []);
      return {
        status: 200,
        body: {
          ...fixture('search-empty'),
          hits: { max_score: 0, hits: children.map((id: string) => ({ _index: index, _id: id, _score: 0 })) },
        },
      };
    });
  }

  it('sends offset as from, the filters as filter clauses on the document, and reads the total', async () => {
    const engine = await startEngine();
    const [workspaceId, author, root, child, grandchild] = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    // The walk meets `root` again below `grandchild` (a cycle left by moves applied out of order): it stops there.
    answerSearches(
      new Map([
        [root, [child]],
        [child, [grandchild]],
        [grandchild, [root]],
      ]),
      fixture('search-cjk', { index, id1: grandchild }),
    );

    const page = await engine.search({
      workspaceId,
      query: 'notes',
      limit: 5,
      offset: 10,
      parentId: root,
      authorId: author,
      updatedAfter: 1_767_225_600_000,
      updatedBefore: 1_769_904_000_000,
    });

    expect(es.unexpected).toEqual([]);
    expect(page.total).toBe(1);
    expect(page.hits.map((hit) => hit.id)).toEqual([grandchild]);
    const sent = es.sent('POST', SEARCH_PATH).map((r) => r.body);
    // Breadth first, one level per request, tombstones left out, archived documents walked through.
    expect(sent.slice(0, 3).map((body) => body.query.bool.filter[1].terms.parentId)).toEqual([
      [root],
      [child],
      [grandchild],
    ]);
    expect(sent[0]).toEqual({
      size: 10_000,
      track_total_hits: false,
      _source: false,
      query: {
        bool: {
          filter: [{ term: { workspaceId } }, { terms: { parentId: [root] } }],
          must_not: [{ term: { removed: true } }],
        },
      },
    });
    expect(sent[1].size).toBe(10_000 - 1);
    expect(sent).toHaveLength(4);
    const search = sent[3];
    expect(search.from).toBe(10);
    expect(search.size).toBe(5);
    expect(search.track_total_hits).toBe(true);
    expect(search.query.bool.filter).toEqual([
      { term: { workspaceId } },
      { term: { archived: false } },
      // Below the parent at any depth, never the parent itself.
      { terms: { id: [child, grandchild] } },
      { term: { createdBy: author } },
      // Both bounds exclusive.
      { range: { updatedAt: { format: 'epoch_millis', gt: '1767225600000', lt: '1769904000000' } } },
    ]);
  });

  it('answers an empty page without searching when nothing is below the parent', async () => {
    const engine = await startEngine();
    answerSearches(new Map(), fixture('search-cjk', { index, id1: randomUUID() }));

    expect(
      await engine.search({ workspaceId: randomUUID(), query: 'notes', limit: 5, parentId: randomUUID() }),
    ).toEqual({
      hits: [],
      total: 0,
    });
    expect(es.sent('POST', SEARCH_PATH)).toHaveLength(1);
  });

  it('looks only where `in` says: the document fields it names, the passage kinds it names', async () => {
    const engine = await startEngine();
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-cjk', { index, id1: randomUUID() }) });
    const workspaceId = randomUUID();

    await engine.search({ workspaceId, query: 'anchor', limit: 5, in: ['title'] });
    await engine.search({ workspaceId, query: 'anchor', limit: 5, in: ['content', 'comments'] });
    await engine.search({ workspaceId, query: 'anchor', limit: 5, in: ['attachments'] });
    const [title, contentAndComments, attachments] = es.sent('POST', SEARCH_PATH).map((r) => r.body);

    const fieldsOf = (clause: any) =>
      clause.bool.should
        .filter((c: any) => c.constant_score)
        .map((c: any) => Object.keys(c.constant_score.filter.match)[0]);
    // Only the title: no passage branch, the exact-title tier, only the title highlighted.
    expect(title.query.bool.must).toHaveLength(1);
    expect(title.query.bool.must[0].bool._name).toBe('document');
    expect(fieldsOf(title.query.bool.must[0].bool.must[0])).toEqual(['title', 'title.ngram']);
    expect(title.query.bool.should).toHaveLength(1);
    expect(Object.keys(title.highlight.fields)).toEqual(['title']);

    // Content and comments: no title anywhere (no exact-title tier), comments only among passages.
    const [own, passages] = branches(contentAndComments);
    expect(fieldsOf(own.bool.must[0])).toEqual(['plainText', 'plainText.ngram']);
    expect(contentAndComments.query.bool.should).toEqual([]);
    expect(Object.keys(contentAndComments.highlight.fields)).toEqual(['plainText']);
    expect(passages.has_child.query.bool.filter).toEqual([{ terms: { passageKind: ['comment'] } }]);
    expect(fieldsOf(passages.has_child.query.bool.must[0])).toEqual(['text', 'text.ngram']);

    // Attachments alone: the passage branch only, and no document highlight at all.
    expect(attachments.query.bool.must).toHaveLength(1);
    expect(attachments.query.bool.must[0].has_child.query.bool.filter).toEqual([
      { terms: { passageKind: ['attachment'] } },
    ]);
    expect(attachments).not.toHaveProperty('highlight');
  });

  it('finds documents through their best passage, scored below any match of their own, highlighted in the passage', async () => {
    const engine = await startEngine();
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-cjk', { index, id1: randomUUID() }) });

    await engine.search({ workspaceId: randomUUID(), query: 'zeppelin', limit: 5 });

    const { has_child } = branches(es.sent('POST', SEARCH_PATH)[0].body)[1];
    expect(has_child.score_mode).toBe('max');
    expect(has_child.query.bool.filter).toEqual([{ terms: { passageKind: ['comment', 'attachment'] } }]);
    expect(has_child.inner_hits).toMatchObject({
      name: 'passage',
      size: 1,
      _source: ['id', 'passageKind', 'threadId'],
      highlight: {
        pre_tags: ['<mark>'],
        post_tags: ['</mark>'],
        encoder: 'html',
        fields: { text: { number_of_fragments: 1, matched_fields: ['text', 'text.ngram'] } },
      },
    });
    // A word and its parts in a passage, with BM25, stay below a part of a content word.
    const tiers = has_child.query.bool.must[0].bool.should
      .filter((c: any) => c.constant_score)
      .map((c: any) => c.constant_score.boost);
    expect(tiers.reduce((sum: number, boost: number) => sum + boost, 0) + 0.1 * 2.2 * 15).toBeLessThan(20);
  });

  it("reads the hits: the document's own match first, else the comment (its thread) or the attachment it was found by", async () => {
    const engine = await startEngine();
    const ids = {
      index,
      id1: randomUUID(),
      id2: randomUUID(),
      id3: randomUUID(),
      parent: randomUUID(),
      comment1: randomUUID(),
      comment2: randomUUID(),
      thread1: randomUUID(),
      thread2: randomUUID(),
      attachment: randomUUID(),
    };
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('search-passages', ids) });

    const page = await engine.search({ workspaceId: randomUUID(), query: 'zeppelin launch', limit: 3, offset: 3 });

    expect(page.total).toBe(12);
    expect(page.hits).toEqual([
      {
        id: ids.id1,
        title: 'Release plan',
        icon: null,
        parentId: ids.parent,
        snippet: 'Dates, <mark>launch</mark> and <mark>zeppelin</mark> owners.',
        matchField: 'content',
      },
      // Its title holds one of the words, but only the comment held them all: a comment match.
      {
        id: ids.id2,
        title: 'Launch & <review>',
        icon: '🚀',
        parentId: null,
        snippet: 'Can we <mark>launch</mark> the <mark>zeppelin</mark> build on Friday &amp; &lt;not&gt; later?',
        matchField: 'comment',
        commentThreadId: ids.thread1,
      },
      {
        id: ids.id3,
        title: 'Vendors',
        icon: null,
        parentId: null,
        snippet: 'conditions. Terms and conditions.  Penalty clause: <mark>zeppelin</mark> <mark>launch</mark>.',
        matchField: 'attachment',
        attachmentId: ids.attachment,
      },
    ]);
  });
});

describe('passages: writes, removals, lists', () => {
  function passage(overrides: Partial<IndexedPassage> = {}): IndexedPassage {
    return {
      id: randomUUID(),
      kind: 'comment',
      documentId: randomUUID(),
      workspaceId: randomUUID(),
      threadId: randomUUID(),
      text: 'Can we ship the zeppelin on Friday?',
      version: 1_764_000_000_000,
      ...overrides,
    };
  }

  it('writes passages as children routed to their document, after a real-time check of their thread and document tombstones, and checks again after', async () => {
    const engine = await startEngine('wait_for');
    const document = randomUUID();
    const removedThread = randomUUID();
    const kept = passage({ documentId: document });
    const older = { ...kept, text: 'older', version: kept.version - 1 };
    const late = passage({ documentId: document, threadId: removedThread });
    const file = passage({ kind: 'attachment', documentId: document, threadId: null, text: 'orca manual' });
    es.on('POST', MGET_PATH, {
      status: 200,
      body: fixture('mget-tombstones', { index, document, thread: removedThread, other: kept.threadId as string }),
    });
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-passages', { index, id1: kept.id }) });

    await engine.upsertPassages([kept, older, late, file]);

    expect(es.unexpected).toEqual([]);
    expect(es.requests.slice(3).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /${alias}/_mget`,
      'POST /_bulk',
      `POST /${alias}/_mget`,
    ]);
    const [before, after] = es.sent('POST', MGET_PATH);
    expect(before.body.ids.sort()).toEqual([document, removedThread, kept.threadId].sort());
    expect(before.query.get('_source')).toBe('removed');
    // The comment of the removed thread is not written; the newest write of an id is.
    const sent = actions(es.sent('POST', BULK_PATH)[0]);
    expect(sent.map((a) => a.meta)).toEqual([
      { _index: alias, _id: kept.id, retry_on_conflict: 5, routing: document },
      { _index: alias, _id: file.id, retry_on_conflict: 5, routing: document },
    ]);
    const { version, ...fields } = kept;
    expect(sent[0].body).toMatchObject({ scripted_upsert: true, upsert: {} });
    expect(sent[0].body.script.params).toEqual({ passage: fields, version });
    const script: string = sent[0].body.script.source;
    expect(script).toContain(
      'if (s.removed == true || (s.textVersion != null && v < s.textVersion)) { ctx.op = "noop" }',
    );
    expect(script).toContain('s.relation = ["name": "passage", "parent": p.documentId];');
    expect(after.body.ids.sort()).toEqual([document, kept.threadId].sort());
  });

  it('turns a passage whose thread was removed while it was written into a tombstone', async () => {
    const engine = await startEngine();
    const [document, thread] = [randomUUID(), randomUUID()];
    const comment = passage({ documentId: document, threadId: thread });
    const other = randomUUID();
    es.on('POST', MGET_PATH, { status: 200, body: fixture('mget-tombstones', { index, document, thread, other }) });
    // Before the write the thread was still there.
    es.on(
      'POST',
      MGET_PATH,
      { status: 200, body: fixture('mget-tombstones', { index, document, thread: other, other: thread }) },
      1,
    );
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-passages', { index, id1: comment.id }) });

    await engine.upsertPassages([comment]);

    const [write, tombstone] = es.sent('POST', BULK_PATH).map(actions);
    expect(write.map((a) => a.meta._id)).toEqual([comment.id]);
    expect(tombstone.map((a) => [a.meta, a.body.script.params, a.body.scripted_upsert])).toEqual([
      [{ _index: alias, _id: comment.id, retry_on_conflict: 5 }, { id: comment.id }, true],
    ]);
    expect(tombstone[0].body.script.source).toContain('ctx._source.removed = true');
  });

  it('removes passages by tombstones for their ids and threads, then deletes those of threads and documents after a refresh', async () => {
    const engine = await startEngine();
    const [id, thread, document] = [randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', BULK_PATH, { status: 200, body: fixture('bulk-removes', { index, id1: id, id2: thread }) });
    es.on('GET', REFRESH_PATH, { status: 200, body: fixture('refresh') });
    es.on('POST', DBQ_PATH, { status: 200, body: fixture('delete-by-query') });

    await engine.removePassages({ ids: [id], threadIds: [thread], documentIds: [document] });
    await engine.removePassages({ ids: [id] });
    await engine.removePassages({});

    expect(es.unexpected).toEqual([]);
    expect(es.requests.slice(3).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /_bulk',
      `GET /${alias}/_refresh`,
      `POST /${alias}/_delete_by_query`,
      // By ids alone: the tombstones replace the passages in place.
      'POST /_bulk',
    ]);
    const tombstones = actions(es.sent('POST', BULK_PATH)[0]);
    expect(tombstones.map((a) => [a.meta._id, a.body.script.params])).toEqual([
      [id, { id }],
      [thread, { id: thread }],
    ]);
    expect(es.sent('POST', DBQ_PATH)[0].body.query.bool.should).toEqual([
      { terms: { threadId: [thread] } },
      { terms: { documentId: [document] } },
    ]);
  });

  it('names the workspaces of the passages a removal names with one terms aggregation, nothing asked for an empty one', async () => {
    const engine = await startEngine();
    const [workspace1, workspace2, id, thread] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('passage-workspaces', { workspace1, workspace2 }) });

    expect(await engine.passageWorkspacesOf({})).toEqual([]);
    expect(await engine.passageWorkspacesOf({ ids: [id], threadIds: [thread] })).toEqual([workspace1, workspace2]);

    const [sent] = es.sent('POST', SEARCH_PATH);
    expect(es.sent('POST', SEARCH_PATH)).toHaveLength(1);
    expect(sent.body).toEqual({
      size: 0,
      track_total_hits: false,
      query: {
        bool: {
          filter: [{ exists: { field: 'passageKind' } }],
          should: [{ terms: { id: [id] } }, { terms: { threadId: [thread] } }],
          minimum_should_match: 1,
          must_not: [{ term: { removed: true } }],
        },
      },
      aggs: { workspaces: { terms: { field: 'workspaceId', size: 1_000 } } },
    });
  });

  it('lists passage ids of a kind ascending, continuing after the last id', async () => {
    const engine = await startEngine();
    const [id1, id2, workspaceId] = [randomUUID(), randomUUID(), randomUUID()];
    es.on('POST', SEARCH_PATH, { status: 200, body: fixture('id-page', { index, id1, id2 }) });

    expect(await engine.listPassageIds({ kind: 'attachment', workspaceId, after: id1, limit: 2 })).toEqual([id1, id2]);

    expect(es.sent('POST', SEARCH_PATH)[0].body).toEqual({
      size: 2,
      track_total_hits: false,
      _source: false,
      query: {
        bool: {
          filter: [{ term: { passageKind: 'attachment' } }, { term: { workspaceId } }],
          must_not: [{ term: { removed: true } }],
        },
      },
      sort: [{ id: 'asc' }],
      search_after: [id1],
    });
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
    // Passages are children in the same index: listed apart (listPassageIds).
    const notPassages = [{ term: { removed: true } }, { exists: { field: 'passageKind' } }];
    expect(page).toEqual({
      size: 2,
      track_total_hits: false,
      _source: false,
      query: { bool: { filter: [{ term: { workspaceId } }], must_not: notPassages } },
      sort: [{ id: 'asc' }],
      search_after: ['00000000-0000-0000-0000-000000000000'],
    });
    expect(all.query).toEqual({ bool: { filter: [], must_not: notPassages } });
    expect(all).not.toHaveProperty('search_after');
  });

  it('names the workspaces of ids with one real-time mget (tombstones and unknown ids name none), nothing asked for no ids', async () => {
    const engine = await startEngine();
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
