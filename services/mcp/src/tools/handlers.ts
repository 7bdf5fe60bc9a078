import { fetchDocumentText, type ServiceClient } from '@wiki/service-client';
import { type AsUserClient, type Caller, PeerRefusal } from '../clients/as-user.js';
import { BLOCK_JSON_SCHEMA, parseContentJson } from '../domain/block-schema.js';
import { LIST_MAX, pageOf, paragraphsOf, RESULT_MAX_CHARS, snippetText, windowOf } from '../domain/text.js';

/** A failure an assistant can act on: its message becomes the tool result `{"error": message}`. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export interface ToolContext {
  caller: Caller;
  users: AsUserClient;
  /** Service-to-service client: only for reads the user's own REST call already authorised. */
  peers: ServiceClient;
}

type Args = Record<string, unknown>;
export type ToolHandler = (args: Args, ctx: ToolContext) => Promise<unknown>;

interface Workspace {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  isArchived: boolean;
  isDefault: boolean;
  documentCount: number;
  updatedAt: string;
}

interface TreeNode {
  id: string;
  title: string;
  parentId: string | null;
  icon: string | null;
  updatedAt: string;
  children: TreeNode[];
}

interface Document {
  id: string;
  title: string;
  content: string;
  excerpt: string;
  parentId: string | null;
  workspaceId: string;
  icon: string | null;
  isArchived: boolean;
  isPublished: boolean;
  wordCount: number;
  revision: number;
  hasChildren: boolean;
  childCount: number;
  openCommentCount: number;
  createdByUser: { name: string };
  lastEditedByUser: { name: string };
  createdAt: string;
  updatedAt: string;
}

const num = (value: unknown, fallback: number): number => (value === undefined ? fallback : Number(value));

/** Puts a peer's refusal into words an assistant can act on; `what` names the thing looked for. */
function refusal(error: unknown, what: string): never {
  if (!(error instanceof PeerRefusal)) throw error;
  switch (error.status) {
    case 404:
      throw new ToolError(`${what} not found or not accessible`);
    case 403:
      throw new ToolError(`Permission too low: ${error.message}`);
    case 412: {
      // Someone wrote since the revision the assistant read: nothing was written.
      const current = error.details.find((d) => d.field === 'revision')?.current;
      throw new ToolError(
        `${what} changed since the revision you read${current === undefined ? '' : `: it is at revision ${current} now`}. Nothing was written: read it again with wikiGetDocument and redo your change on what is there`,
      );
    }
    case 400: {
      const details = error.details.map((d) => `${d.field} ${d.message}`).join('; ');
      throw new ToolError(`Invalid input: ${details || error.message}`);
    }
    default:
      throw new ToolError(error.message);
  }
}

async function asUser<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    refusal(error, what);
  }
}

const workspacesOf = (ctx: ToolContext) =>
  asUser('Workspaces', () => ctx.users.call<Workspace[]>(ctx.caller, 'workspace', 'GET', '/api/v1/workspaces'));

/**
 * The workspace an exact name means among the user's workspaces. Several may share a name: the
 * assistant is told so, with their ids, one of which it may pass instead of the name.
 */
async function workspaceNamed(ctx: ToolContext, name: string, forWriting: boolean): Promise<Workspace> {
  const all = await workspacesOf(ctx);
  const byId = all.find((w) => w.id === name.toLowerCase());
  const matches = byId ? [byId] : all.filter((w) => w.name === name);
  if (matches.length === 0) {
    throw new ToolError(`Workspace "${name}" not found or not accessible (wikiListUserWorkspaces lists yours)`);
  }
  if (matches.length > 1) {
    const ids = matches.map((w) => w.id).join(', ');
    throw new ToolError(
      `${matches.length} of your workspaces are named "${name}" (ids ${ids}): pass the id of the one you mean as workspaceName`,
    );
  }
  const [workspace] = matches;
  if (workspace.isArchived && forWriting) throw new ToolError(`Workspace "${workspace.name}" is archived`);
  return workspace;
}

function flatten(nodes: TreeNode[]) {
  const out: Array<{
    id: string;
    title: string;
    icon: string | null;
    parentId: string | null;
    depth: number;
    updatedAt: string;
  }> = [];
  // Depth-first with an explicit stack: tree order, and no recursion limit on deep trees.
  const stack: Array<[TreeNode, number]> = nodes.map((n) => [n, 0] as [TreeNode, number]).reverse();
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [TreeNode, number];
    out.push({
      id: node.id,
      title: node.title,
      icon: node.icon,
      parentId: node.parentId,
      depth,
      updatedAt: node.updatedAt,
    });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1]);
  }
  return out;
}

/** `remaining` and `nextOffset` say how to read on; `hint` says it in words. */
function paged<T>(
  key: string,
  all: readonly T[],
  args: Args,
  extra: Record<string, unknown> = {},
  of?: { total: number; offset: number; remaining: number; nextOffset: number | null },
) {
  const page = of ? { ...of, items: all } : pageOf(all, num(args.offset, 0), num(args.limit, LIST_MAX));
  return {
    ...extra,
    [key]: page.items,
    total: page.total,
    offset: page.offset,
    remaining: page.remaining,
    nextOffset: page.nextOffset,
    ...(page.nextOffset !== null ? { hint: `${page.remaining} more: call again with offset=${page.nextOffset}` } : {}),
  };
}

async function listDocuments(ctx: ToolContext, workspaceId: string, args: Args, workspace?: Workspace) {
  const tree = await asUser(`Workspace ${workspaceId}`, () =>
    ctx.users.call<TreeNode[]>(ctx.caller, 'document', 'GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`),
  );
  const head = workspace ? { workspace: { id: workspace.id, name: workspace.name } } : { workspaceId };
  return paged('documents', flatten(tree), args, head);
}

const getDocument = (ctx: ToolContext, id: string) =>
  asUser(`Document ${id}`, () => ctx.users.call<Document>(ctx.caller, 'document', 'GET', `/api/v1/documents/${id}`));

/** The document service's plain text; the caller's own read of the document authorised it. */
async function plainTextOf(ctx: ToolContext, doc: Document): Promise<string> {
  const whole = await fetchDocumentText(ctx.peers, doc.id, { requestId: ctx.caller.requestId });
  if (!whole) throw new ToolError(`Document ${doc.id} not found or not accessible`);
  return whole.plainText;
}

/**
 * The wikiGetDocument answer: metadata and a window of the text. The window shrinks until the
 * whole answer, JSON escapes included, fits the result cap.
 */
function presentDocument(
  doc: Document,
  text: string,
  part: 'plainText' | 'contentJson',
  offset: number,
  limit: number,
) {
  let size = Math.min(limit, RESULT_MAX_CHARS);
  for (;;) {
    const window = windowOf(text, offset, size);
    const result = {
      id: doc.id,
      title: doc.title,
      workspaceId: doc.workspaceId,
      parentId: doc.parentId,
      icon: doc.icon,
      excerpt: doc.excerpt,
      wordCount: doc.wordCount,
      revision: doc.revision,
      isArchived: doc.isArchived,
      isPublished: doc.isPublished,
      hasChildren: doc.hasChildren,
      childCount: doc.childCount,
      openCommentCount: doc.openCommentCount,
      createdBy: doc.createdByUser?.name,
      lastEditedBy: doc.lastEditedByUser?.name,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      [part]: window.text,
      offset: window.offset,
      totalChars: window.totalChars,
      nextOffset: window.nextOffset,
      ...(window.nextOffset !== null
        ? { hint: `${part} is cut: call again with offset=${window.nextOffset} to read on` }
        : {}),
    };
    const overflow = JSON.stringify(result).length - RESULT_MAX_CHARS;
    if (overflow <= 0 || size <= 1) return result;
    size = Math.max(1, Math.min(size, window.text.length) - overflow - 16);
  }
}

async function documentAnswer(ctx: ToolContext, doc: Document) {
  return presentDocument(doc, await plainTextOf(ctx, doc), 'plainText', 0, RESULT_MAX_CHARS);
}

/** A document of the named workspace (readable by the user). */
async function documentIn(ctx: ToolContext, args: Args, forWriting: boolean) {
  const workspace = await workspaceNamed(ctx, String(args.workspaceName), forWriting);
  const doc = await getDocument(ctx, String(args.documentId));
  if (doc.workspaceId !== workspace.id) {
    throw new ToolError(`Document ${doc.id} is not in workspace "${workspace.name}"`);
  }
  return { workspace, doc };
}

/** A document of the named workspace that may be written: not archived. */
async function writableDocument(ctx: ToolContext, args: Args): Promise<{ workspace: Workspace; doc: Document }> {
  const found = await documentIn(ctx, args, true);
  if (found.doc.isArchived) throw new ToolError(`Document ${found.doc.id} is archived; restore it in the wiki first`);
  return found;
}

interface RevisionSummary {
  id: string;
  revision: number;
  title: string;
  name: string | null;
  source: string;
  createdAt: string;
  createdBy: { name: string };
  contributors: Array<{ name: string }>;
  wordCount: number;
}

interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
}

function blocksOf(contentJson: unknown): unknown[] {
  const parsed = parseContentJson(contentJson);
  if ('problem' in parsed) throw new ToolError(`Bad content: ${parsed.problem} (see wikiGetBlockNoteSchema)`);
  return parsed.blocks;
}

const putDocument = (ctx: ToolContext, id: string, body: Record<string, unknown>) =>
  asUser(`Document ${id}`, () =>
    ctx.users.call<Document>(ctx.caller, 'document', 'PUT', `/api/v1/documents/${id}`, body),
  );

export const HANDLERS: Record<string, ToolHandler> = {
  async wikiListWorkspaces(args, ctx) {
    const active = (await workspacesOf(ctx))
      .filter((w) => !w.isArchived)
      .map((w) => ({ id: w.id, name: w.name, description: w.description, icon: w.icon }));
    return paged('workspaces', active, args);
  },

  async wikiListUserWorkspaces(args, ctx) {
    const page = pageOf(await workspacesOf(ctx), num(args.offset, 0), num(args.limit, LIST_MAX));
    const roles = new Map<string, string | null>();
    // The role is the user's own membership in workspaces their REST call just listed.
    for (let i = 0; i < page.items.length; i += 10) {
      await Promise.all(
        page.items.slice(i, i + 10).map(async (w) => {
          const m = await ctx.peers.get<{ role: string | null }>(
            'workspace',
            `/internal/workspaces/${w.id}/members/${ctx.caller.userId}`,
            { requestId: ctx.caller.requestId },
          );
          roles.set(w.id, m?.role ?? null);
        }),
      );
    }
    const workspaces = page.items.map((w) => ({
      id: w.id,
      name: w.name,
      description: w.description,
      icon: w.icon,
      role: roles.get(w.id) ?? null,
      isArchived: w.isArchived,
      isDefault: w.isDefault,
      documentCount: w.documentCount,
    }));
    return paged('workspaces', workspaces, { offset: 0, limit: LIST_MAX }, {}, page);
  },

  wikiListDocuments: (args, ctx) => listDocuments(ctx, String(args.workspaceId).toLowerCase(), args),

  async wikiListDocumentsInWorkspace(args, ctx) {
    const workspace = await workspaceNamed(ctx, String(args.workspaceName), false);
    if (workspace.isArchived) throw new ToolError(`Workspace "${workspace.name}" is archived`);
    return listDocuments(ctx, workspace.id, args, workspace);
  },

  async wikiSearch(args, ctx) {
    const workspaceId = String(args.workspaceId).toLowerCase();
    const query = new URLSearchParams({ workspaceId, query: String(args.query), limit: String(num(args.limit, 20)) });
    const hits = await asUser(`Workspace ${workspaceId}`, () =>
      ctx.users.call<
        Array<{
          id: string;
          title: string;
          icon: string | null;
          parentId: string | null;
          snippet: string;
          matchField: string;
          commentThreadId?: string;
          attachmentId?: string;
        }>
      >(ctx.caller, 'search', 'GET', `/api/v1/documents/search?${query}`),
    );
    return {
      workspaceId,
      query: args.query,
      results: hits.map((h) => ({
        id: h.id,
        title: h.title,
        icon: h.icon,
        parentId: h.parentId,
        matchField: h.matchField,
        // Where a comment or a file matched (absent for title and content matches).
        commentThreadId: h.commentThreadId,
        attachmentId: h.attachmentId,
        excerpt: snippetText(h.snippet),
      })),
      count: hits.length,
    };
  },

  async wikiGetDocument(args, ctx) {
    const doc = await getDocument(ctx, String(args.documentId));
    if (doc.isArchived) throw new ToolError(`Document ${doc.id} is archived`);
    const part = args.part === 'contentJson' ? 'contentJson' : 'plainText';
    const text = part === 'contentJson' ? doc.content : await plainTextOf(ctx, doc);
    return presentDocument(doc, text, part, num(args.offset, 0), num(args.limit, RESULT_MAX_CHARS));
  },

  async wikiGetBlockNoteSchema() {
    return BLOCK_JSON_SCHEMA;
  },

  async wikiCreateDocument(args, ctx) {
    const blocks = blocksOf(args.contentJson);
    const workspace = await workspaceNamed(ctx, String(args.workspaceName), true);
    const body: Record<string, unknown> = { workspaceId: workspace.id, title: args.title, content: blocks };
    if (args.parentId !== undefined) body.parentId = String(args.parentId).toLowerCase();
    const doc = await asUser(`Workspace "${workspace.name}" or its parent document`, () =>
      ctx.users.call<Document>(ctx.caller, 'document', 'POST', '/api/v1/documents', body),
    );
    return documentAnswer(ctx, doc);
  },

  async wikiUpdateDocument(args, ctx) {
    if (args.title === undefined && args.contentJson === undefined) {
      throw new ToolError('Nothing to update: give title, contentJson or both');
    }
    const body: Record<string, unknown> = {};
    if (args.contentJson !== undefined) body.content = blocksOf(args.contentJson);
    if (args.title !== undefined) body.title = args.title;
    // Checked by the document service under the row's lock: a write in between refuses this one.
    if (args.lastRevision !== undefined) body.lastRevision = Number(args.lastRevision);
    const { doc } = await writableDocument(ctx, args);
    return documentAnswer(ctx, await putDocument(ctx, doc.id, body));
  },

  async wikiAppendTextToDocument(args, ctx) {
    const paragraphs = paragraphsOf(String(args.textToAppend));
    if (paragraphs.length === 0) throw new ToolError('textToAppend holds no text');
    const { doc } = await writableDocument(ctx, args);
    // Appended by the document service to the content as stored then: never a read-modify-write
    // over the network, which would drop what someone typed in between.
    const appended = await asUser(`Document ${doc.id}`, () =>
      ctx.users.call<Document>(ctx.caller, 'document', 'POST', `/api/v1/documents/${doc.id}/append`, {
        content: JSON.stringify(paragraphs),
      }),
    );
    return documentAnswer(ctx, appended);
  },

  async wikiListRevisions(args, ctx) {
    const { doc } = await documentIn(ctx, args, false);
    const page = num(args.page, 0);
    const size = num(args.size, 20);
    const revisions = await asUser(`Document ${doc.id}`, () =>
      ctx.users.call<Page<RevisionSummary>>(
        ctx.caller,
        'document',
        'GET',
        `/api/v1/documents/${doc.id}/revisions?page=${page}&size=${size}`,
      ),
    );
    const more = revisions.number + 1 < revisions.totalPages;
    return {
      documentId: doc.id,
      currentRevision: doc.revision,
      revisions: revisions.content.map((r) => ({
        id: r.id,
        revision: r.revision,
        title: r.title,
        name: r.name,
        source: r.source,
        createdAt: r.createdAt,
        createdBy: r.createdBy?.name,
        contributors: r.contributors.map((c) => c.name),
        wordCount: r.wordCount,
      })),
      page: revisions.number,
      totalPages: revisions.totalPages,
      total: revisions.totalElements,
      ...(more ? { hint: `older revisions: call again with page=${revisions.number + 1}` } : {}),
    };
  },

  async wikiRestoreRevision(args, ctx) {
    const { doc } = await writableDocument(ctx, args);
    const revisionId = String(args.revisionId).toLowerCase();
    const restored = await asUser(`Revision ${revisionId} of document ${doc.id}`, () =>
      ctx.users.call<Document>(
        ctx.caller,
        'document',
        'POST',
        `/api/v1/documents/${doc.id}/revisions/${revisionId}/restore`,
      ),
    );
    return documentAnswer(ctx, restored);
  },

  async wikiDeleteDocument(args, ctx) {
    const workspace = await workspaceNamed(ctx, String(args.workspaceName), true);
    const doc = await getDocument(ctx, String(args.documentId));
    if (doc.workspaceId !== workspace.id) {
      throw new ToolError(`Document ${doc.id} is not in workspace "${workspace.name}"`);
    }
    if (doc.isArchived) throw new ToolError(`Document ${doc.id} is already archived`);
    await putDocument(ctx, doc.id, { isArchived: true });
    return {
      success: true,
      message: `Document "${doc.title}" (${doc.id}) was archived; it and its sub-documents are hidden until restored in the wiki`,
    };
  },
};
