import type { estypes } from '@elastic/elasticsearch';

/**
 * The index template the engine installs at start (PUT replaces it, so installing is idempotent).
 * It applies to the concrete indices behind the deployment's alias (`<alias>-000001`, and any later
 * generation a reindex creates), never to another deployment's: test runs and deployments sharing
 * one cluster each get their own alias from their own prefix.
 *
 * Analysis needs no plugin:
 * - `wiki_text` (title, plainText): the standard tokenizer splits Latin text into words and CJK
 *   text into single characters; `cjk_width` folds full/half-width forms, `lowercase` and
 *   `asciifolding` make `Café` equal `cafe`, and `cjk_bigram` joins neighbouring CJK characters into
 *   pairs, so any run of two or more characters (`训练`) is found inside text without spaces.
 *   No stop-word filter: a query of common words (`to be or not to be`) still finds documents.
 * - `wiki_trigram` (the `.ngram` sub-fields): words (runs of letters and digits) cut into
 *   3-character grams, folded the same way, so a part of a word is found, not only its start
 *   (`pages` finds `Subpages`, `offic` and `ffic` find `office`).
 * - `wiki_exact` (the `title.exact` keyword): the words of the whole title, folded the same way
 *   and joined by one space, for the exact-title tier.
 */

/**
 * Bumped whenever settings or mappings change. New indices take the template; an existing index
 * gets the fields a revision added (ADDED_FIELDS, put on it at start: adding fields is the one
 * mapping change Elasticsearch allows in place) and keeps its settings until a reindex.
 * Revision 2 (issue 30): createdBy, updatedAt, the passages (docs/DECISIONS.md).
 */
export const TEMPLATE_REVISION = 2;

export const indexSettings: estypes.IndicesIndexSettings = {
  // One shard: the corpus of a wiki fits one, and BM25 statistics stay the same for every query.
  number_of_shards: 1,
  // A replica where the cluster has a second node, none on a single-node cluster (stays green).
  auto_expand_replicas: '0-1',
  // Close to the write→searchable lag target; the default of 1 s would be the lag on its own.
  refresh_interval: '200ms',
  analysis: {
    tokenizer: {
      // A tokenizer, not a token filter: each gram keeps its own offsets, so a highlight marks the
      // matched part (`Sub<mark>pages</mark>`), not the whole word.
      wiki_trigram: { type: 'ngram', min_gram: 3, max_gram: 3, token_chars: ['letter', 'digit'] },
    },
    analyzer: {
      wiki_text: {
        type: 'custom',
        tokenizer: 'standard',
        filter: ['cjk_width', 'lowercase', 'asciifolding', 'cjk_bigram'],
      },
      wiki_trigram: {
        type: 'custom',
        tokenizer: 'wiki_trigram',
        filter: ['cjk_width', 'lowercase', 'asciifolding'],
      },
    },
    char_filter: {
      wiki_words: { type: 'pattern_replace', pattern: '[^\\p{L}\\p{N}\\p{M}]+', replacement: ' ' },
      wiki_trim: { type: 'pattern_replace', pattern: '^ | $', replacement: '' },
    },
    normalizer: {
      // The words of the title joined by one space (punctuation and spacing do not count), like
      // the Postgres engine's title key: `Release notes!` is exactly the query `release notes`.
      wiki_exact: {
        type: 'custom',
        char_filter: ['wiki_words', 'wiki_trim'],
        filter: ['cjk_width', 'lowercase', 'asciifolding'],
      },
    },
  },
};

export const indexMappings: estypes.MappingTypeMapping = {
  // A field the engine does not know is a bug in the engine: refuse it rather than guess a type.
  dynamic: 'strict',
  properties: {
    id: { type: 'keyword' },
    workspaceId: { type: 'keyword' },
    parentId: { type: 'keyword' },
    icon: { type: 'keyword', index: false, doc_values: false },
    title: {
      type: 'text',
      analyzer: 'wiki_text',
      fields: {
        ngram: { type: 'text', analyzer: 'wiki_trigram' },
        exact: { type: 'keyword', normalizer: 'wiki_exact', ignore_above: 2048 },
      },
    },
    plainText: {
      type: 'text',
      analyzer: 'wiki_text',
      fields: { ngram: { type: 'text', analyzer: 'wiki_trigram' } },
    },
    archived: { type: 'boolean' },
    // Versions (event time in ms) of the last text write and the last state write (writes.ts).
    textVersion: { type: 'long', index: false },
    stateVersion: { type: 'long', index: false },
    // A deleted document's tombstone.
    removed: { type: 'boolean' },
    ...addedFields(),
  },
};

/**
 * The fields of revision 2 (issue 30, ARCHITECTURE 5.20): the filters' creator and last change,
 * and the passages (comment and attachment texts), which are child documents of their document in
 * the same index (`relation`, a join field): `has_child` finds a document by a passage with the
 * document's own filters, one hit per document, and the total counts documents.
 */
function addedFields(): Record<string, estypes.MappingProperty> {
  return {
    createdBy: { type: 'keyword' },
    updatedAt: { type: 'date', format: 'epoch_millis' },
    // `document` for documents, `passage` (with its document as parent) for passages.
    relation: { type: 'join', relations: { document: 'passage' } },
    passageKind: { type: 'keyword' },
    documentId: { type: 'keyword' },
    threadId: { type: 'keyword' },
    text: {
      type: 'text',
      analyzer: 'wiki_text',
      fields: { ngram: { type: 'text', analyzer: 'wiki_trigram' } },
    },
  };
}

/** The fields revision 2 added, put on an index made by revision 1 (`PUT /<alias>/_mapping`). */
export const ADDED_FIELDS = addedFields();

/** The `PUT /_index_template/<alias>` request. */
export function indexTemplate(alias: string): estypes.IndicesPutIndexTemplateRequest {
  return {
    name: alias,
    index_patterns: [`${alias}-*`],
    // Above the built-in templates (priority 100..200) so ours decides for these indices.
    priority: 500,
    template: { settings: indexSettings, mappings: indexMappings },
    _meta: { managed_by: 'wiki search service', revision: TEMPLATE_REVISION },
  };
}

/** The first concrete index behind the alias. */
export function firstIndexName(alias: string): string {
  return `${alias}-000001`;
}
