import { Client, errors, type estypes } from '@elastic/elasticsearch';
import type {
  DocumentPatch,
  IdPage,
  IndexedDocument,
  IndexedPassage,
  PassageIdPage,
  PassageRemoval,
  SearchEngine,
  SearchPage,
  SearchQuery,
} from '../engine.js';
import { type HitSource, toSearchPage } from './hits.js';
import { ADDED_FIELDS, firstIndexName, indexTemplate } from './index-template.js';
import {
  passageAction,
  passageIdPageRequest,
  passagesOf,
  passageTombstoneAction,
  passageWorkspacesRequest,
} from './passages.js';
import {
  idPageRequest,
  parseQuery,
  SUBTREE_MAX_DEPTH,
  SUBTREE_MAX_DOCUMENTS,
  searchRequest,
  subtreeLevelRequest,
} from './query.js';
import {
  type BulkAction,
  bulkBatches,
  ElasticsearchBulkError,
  failedItems,
  missingDocuments,
  patchAction,
  removeAction,
  upsertAction,
} from './writes.js';

export interface ElasticsearchEngineOptions {
  /** ELASTICSEARCH_URL (credentials may sit in the URL). */
  url: string;
  /**
   * The alias searches and writes go to; one per deployment (derived from DB_PREFIX), so
   * deployments and test runs sharing a cluster never see each other's documents.
   */
  alias: string;
  /**
   * Whether a write waits until it is searchable (`wait_for`) before it resolves. Off by default:
   * the index refreshes every 200 ms on its own. Tests that search right after writing turn it on.
   */
  refresh?: boolean | 'wait_for';
  requestTimeoutMs?: number;
}

/**
 * The Elasticsearch server major this engine supports: the installed client's (9.x). A 9.x client
 * sends `compatible-with=9` on every request, which 8.x servers refuse (400
 * media_type_header_exception); 8.x servers are not supported (docs/DECISIONS.md, issue 24).
 * A test holds this, the installed client's major and what the READMEs state together.
 */
export const SUPPORTED_ELASTICSEARCH_MAJOR = 9;

/** Ids per mget of `workspacesOf` (event batches are far smaller; a reindex sweep can be larger). */
const WORKSPACES_OF_CHUNK = 1_000;

/** Elasticsearch 9 behind the SearchEngine contract (ARCHITECTURE 5.8). */
export class ElasticsearchEngine implements SearchEngine {
  readonly name = 'elasticsearch' as const;

  private constructor(
    private readonly client: Client,
    private readonly alias: string,
    private readonly refresh: boolean | 'wait_for',
  ) {}

  /** Connects, installs the index template and creates the index behind the alias if missing. */
  static async start(options: ElasticsearchEngineOptions): Promise<ElasticsearchEngine> {
    const client = new Client({
      node: options.url,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      maxRetries: 2,
    });
    const engine = new ElasticsearchEngine(client, options.alias, options.refresh ?? false);
    try {
      await engine.install();
    } catch (error) {
      await client.close();
      throw refusedVersion(error) ?? error;
    }
    return engine;
  }

  private async install(): Promise<void> {
    await this.client.indices.putIndexTemplate(indexTemplate(this.alias));
    if (await this.client.indices.exists({ index: this.alias })) {
      // An index of an older revision gets the fields added since (already there: no change);
      // its documents gain them on their next write or a reindex (docs/DECISIONS.md).
      await this.client.indices.putMapping({ index: this.alias, properties: ADDED_FIELDS });
      return;
    }
    try {
      await this.client.indices.create({
        index: firstIndexName(this.alias),
        aliases: { [this.alias]: { is_write_index: true } },
      });
    } catch (error) {
      // Another replica starting at the same time created it first: that is the state we want.
      if (!(error instanceof errors.ResponseError && error.body?.error?.type === 'resource_already_exists_exception')) {
        throw error;
      }
    }
  }

  async upsert(documents: readonly IndexedDocument[]): Promise<void> {
    await this.bulk(documents.map((document) => upsertAction(this.alias, document)));
  }

  async patch(patches: readonly DocumentPatch[]): Promise<string[]> {
    return this.bulk(patches.map((patch) => patchAction(this.alias, patch)));
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.bulk(ids.map((id) => removeAction(this.alias, id)));
    // The tombstones keep late passages out (upsertPassages); the ones already there go now.
    await this.deletePassages({ documentIds: ids });
  }

  async removeWorkspace(workspaceId: string): Promise<void> {
    const response = await this.client.deleteByQuery({
      index: this.alias,
      // Tombstones stay: a late event must not bring a deleted document back.
      query: { bool: { filter: [{ term: { workspaceId } }], must_not: [{ term: { removed: true } }] } },
      // A document written while the purge runs is deleted on the next purge, not a failure now.
      conflicts: 'proceed',
      refresh: this.refresh !== false,
    });
    throwFailures(response, `could not purge workspace ${workspaceId}`);
  }

  async search(query: SearchQuery): Promise<SearchPage> {
    // Nothing to look for: no subtree walk either.
    if (parseQuery(query.query).groups.length === 0) return { hits: [], total: 0 };
    let below: string[] | undefined;
    if (query.parentId !== undefined) {
      below = await this.subtree(query.workspaceId, query.parentId);
      if (below.length === 0) return { hits: [], total: 0 };
    }
    const request = searchRequest(this.alias, query, below);
    if (!request) return { hits: [], total: 0 };
    return toSearchPage(await this.client.search<HitSource>(request));
  }

  /**
   * The ids below a document at any depth, as the index holds the tree now (so a subtree follows
   * moves), walked breadth-first one level per request; a cycle left for a moment by moves applied
   * out of order ends the walk. Bounded: a subtree of more than SUBTREE_MAX_DOCUMENTS documents,
   * or deeper than SUBTREE_MAX_DEPTH levels, is searched in the part the walk reached.
   */
  private async subtree(workspaceId: string, parentId: string): Promise<string[]> {
    const seen = new Set<string>([parentId]);
    const below: string[] = [];
    let level = [parentId];
    for (let depth = 0; depth < SUBTREE_MAX_DEPTH && level.length > 0; depth += 1) {
      const room = SUBTREE_MAX_DOCUMENTS - below.length;
      if (room <= 0) break;
      const response = await this.client.search(subtreeLevelRequest(this.alias, workspaceId, level, room));
      level = [];
      for (const hit of response.hits.hits) {
        const id = String(hit._id);
        if (seen.has(id)) continue;
        seen.add(id);
        below.push(id);
        level.push(id);
      }
    }
    return below;
  }

  async listIds(page: IdPage): Promise<string[]> {
    const response = await this.client.search(idPageRequest(this.alias, page));
    return response.hits.hits.map((hit) => String(hit._id));
  }

  async workspacesOf(ids: readonly string[]): Promise<string[]> {
    const workspaces = new Set<string>();
    // mget reads the documents as written, not as of the last refresh (a search would miss the newest).
    for (let from = 0; from < ids.length; from += WORKSPACES_OF_CHUNK) {
      const response = await this.client.mget<{ workspaceId?: string; removed?: boolean }>({
        index: this.alias,
        ids: ids.slice(from, from + WORKSPACES_OF_CHUNK),
        _source: ['workspaceId', 'removed'],
      });
      for (const doc of response.docs) {
        const source = 'found' in doc && doc.found ? doc._source : undefined;
        if (source?.workspaceId && source.removed !== true) workspaces.add(source.workspaceId);
      }
    }
    return [...workspaces];
  }

  async upsertPassages(passages: readonly IndexedPassage[]): Promise<void> {
    const newest = new Map<string, IndexedPassage>();
    for (const p of passages) {
      const seen = newest.get(p.id);
      if (!seen || seen.version <= p.version) newest.set(p.id, p);
    }
    const owners = (list: readonly IndexedPassage[]) => [
      ...new Set(list.flatMap((p) => (p.threadId ? [p.threadId, p.documentId] : [p.documentId]))),
    ];
    const gone = await this.removedIds(owners([...newest.values()]));
    const live = [...newest.values()].filter((p) => !gone.has(p.documentId) && !gone.has(p.threadId ?? ''));
    if (live.length === 0) return;
    await this.bulk(live.map((p) => passageAction(this.alias, p)));
    // A thread or document removed while this wrote: its removal's delete may have missed these.
    const goneSince = await this.removedIds(owners(live));
    const late = live.filter((p) => goneSince.has(p.documentId) || goneSince.has(p.threadId ?? ''));
    if (late.length > 0) await this.bulk(late.map((p) => passageTombstoneAction(this.alias, p.id)));
  }

  async removePassages(removal: PassageRemoval): Promise<void> {
    // Passages and threads leave tombstones here; documents leave theirs when removed (remove()).
    const tombstones = [...new Set([...(removal.ids ?? []), ...(removal.threadIds ?? [])])];
    await this.bulk(tombstones.map((id) => passageTombstoneAction(this.alias, id)));
    if ((removal.threadIds ?? []).length + (removal.documentIds ?? []).length === 0) return;
    await this.deletePassages({ threadIds: removal.threadIds, documentIds: removal.documentIds });
  }

  async passageWorkspacesOf(removal: PassageRemoval): Promise<string[]> {
    const query = passagesOf(removal);
    if (!query) return [];
    const response = await this.client.search(passageWorkspacesRequest(this.alias, query));
    const buckets = (response.aggregations?.workspaces as estypes.AggregationsStringTermsAggregate | undefined)
      ?.buckets;
    return (Array.isArray(buckets) ? buckets : []).map((bucket) => String(bucket.key));
  }

  async listPassageIds(page: PassageIdPage): Promise<string[]> {
    const response = await this.client.search(passageIdPageRequest(this.alias, page));
    return response.hits.hits.map((hit) => String(hit._id));
  }

  /** The ids among `ids` that hold a tombstone, read in real time (mget). */
  private async removedIds(ids: readonly string[]): Promise<Set<string>> {
    const removed = new Set<string>();
    for (let from = 0; from < ids.length; from += WORKSPACES_OF_CHUNK) {
      const response = await this.client.mget<{ removed?: boolean }>({
        index: this.alias,
        ids: ids.slice(from, from + WORKSPACES_OF_CHUNK),
        _source: ['removed'],
      });
      for (const doc of response.docs) {
        if ('found' in doc && doc.found && doc._source?.removed === true) removed.add(String(doc._id));
      }
    }
    return removed;
  }

  /**
   * Deletes the live passages of threads or documents. A refresh first: delete_by_query sees only
   * what the last refresh made searchable, and a passage written just before its thread's or
   * document's tombstone must not stay (upsertPassages checks the tombstones after its write).
   */
  private async deletePassages(removal: PassageRemoval): Promise<void> {
    const query = passagesOf(removal);
    if (!query) return;
    await this.client.indices.refresh({ index: this.alias });
    const response = await this.client.deleteByQuery({
      index: this.alias,
      query,
      conflicts: 'proceed',
      refresh: this.refresh !== false,
    });
    throwFailures(response, 'could not delete passages');
  }

  async health(): Promise<void> {
    // No retries: a readiness probe wants the answer of now, within its own timeout.
    const health = await this.client.cluster.health(
      { index: this.alias, timeout: '2s' },
      { maxRetries: 0, requestTimeout: 3_000 },
    );
    if (health.status === 'red') throw new Error(`Elasticsearch index ${this.alias} is red`);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** Runs the actions in bulk requests; answers the ids of the updates that found no document. */
  private async bulk(actions: readonly BulkAction[]): Promise<string[]> {
    const missing: string[] = [];
    for (const operations of bulkBatches(actions)) {
      const response = await this.client.bulk({ operations, refresh: this.refresh });
      const failures = failedItems(response);
      if (failures.length > 0) throw new ElasticsearchBulkError(failures);
      missing.push(...missingDocuments(response));
    }
    return missing;
  }
}

/** Elasticsearch stops a delete_by_query at the first failed batch; what it had deleted stays deleted. */
function throwFailures(response: estypes.DeleteByQueryResponse, what: string): void {
  const failures = response.failures ?? [];
  if (failures.length > 0) {
    const [first] = failures;
    throw new Error(
      `Elasticsearch ${what}: ${failures.length} failure(s), first ${first.id}: ${first.cause.type} (${first.cause.reason})`,
    );
  }
}

/**
 * The first request's refusal by a server of another major (an 8.x one refuses the 9.x client's
 * compatibility headers), turned into an error that says so instead of a bare 400.
 */
function refusedVersion(error: unknown): Error | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  if (error.body?.error?.type !== 'media_type_header_exception') return undefined;
  return new Error(
    `Elasticsearch refused the client's compatible-with=${SUPPORTED_ELASTICSEARCH_MAJOR} headers: this service ` +
      `supports Elasticsearch ${SUPPORTED_ELASTICSEARCH_MAJOR}.x servers only (an older server refuses them; ` +
      'services/search/README.md)',
    { cause: error },
  );
}
