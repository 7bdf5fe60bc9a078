/**
 * The eleven tools of spec 4.11 and the two of history (ARCHITECTURE 5.16) as an assistant sees
 * them: names, descriptions and input schemas.
 * The whole list (with every description and schema) must stay under 32 KB: a test measures it.
 */

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const uuid = (description: string) => ({ type: 'string', pattern: UUID_PATTERN, description });
const count = (description: string) => ({
  type: ['integer', 'string'],
  minimum: 0,
  pattern: '^[0-9]{1,9}$',
  description,
});
const workspaceName = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Exact workspace name (or its id when several share the name)',
};
const offset = count('Where to start (default 0); a cut answer gives nextOffset');
const limit = (max: number, fallback: number) => count(`At most this many (1-${max}, default ${fallback})`);

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, object>;
    required?: string[];
    additionalProperties: false;
  };
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
}

const input = (properties: Record<string, object>, required: string[] = []): ToolDefinition['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

const read = { readOnlyHint: true, openWorldHint: false } as const;
const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

export const TOOLS: ToolDefinition[] = [
  {
    name: 'wikiListWorkspaces',
    title: 'List active workspaces',
    description:
      "The user's active (not archived) workspaces: id, name, description, icon. Paged: see remaining and nextOffset.",
    inputSchema: input({ offset, limit: limit(100, 100) }),
    annotations: read,
  },
  {
    name: 'wikiListUserWorkspaces',
    title: "List the user's workspaces",
    description:
      "Every workspace the user belongs to, archived ones too, with the user's role (OWNER, ADMIN, EDITOR, COMMENTER, VIEWER; EDITOR and above may write) and isArchived.",
    inputSchema: input({ offset, limit: limit(100, 100) }),
    annotations: read,
  },
  {
    name: 'wikiListDocuments',
    title: 'List documents of a workspace',
    description:
      'Documents of a workspace (not archived ones) in tree order: id, title, icon, parentId (null at the root), depth, updatedAt. Paged: see remaining and nextOffset.',
    inputSchema: input({ workspaceId: uuid('Workspace id'), offset, limit: limit(100, 100) }, ['workspaceId']),
    annotations: read,
  },
  {
    name: 'wikiListDocumentsInWorkspace',
    title: 'List documents of a workspace by its name',
    description: 'Like wikiListDocuments, with the workspace given by its exact name.',
    inputSchema: input({ workspaceName, offset, limit: limit(100, 100) }, ['workspaceName']),
    annotations: read,
  },
  {
    name: 'wikiSearch',
    title: 'Search documents',
    description:
      'Full-text search in one workspace, best match first, one result per document: id, title, matchField (title, content, comment with commentThreadId, or attachment with attachmentId: the text of an attached PDF, Word, HTML or text file), excerpt. Finds parts of words, ignores accents; "quoted phrases", OR and -word work.',
    inputSchema: input(
      {
        workspaceId: uuid('Workspace id'),
        query: { type: 'string', minLength: 1, maxLength: 1000, description: 'What to look for' },
        limit: limit(50, 20),
      },
      ['workspaceId', 'query'],
    ),
    annotations: read,
  },
  {
    name: 'wikiGetDocument',
    title: 'Read a document',
    description:
      'A document\'s metadata and its text: plainText by default, or the block JSON with part="contentJson" (to edit it). Long text is cut; read on with offset=nextOffset.',
    inputSchema: input(
      {
        documentId: uuid('Document id'),
        part: { enum: ['plainText', 'contentJson'], description: 'Which text to return (default plainText)' },
        offset: count('First character to return (default 0)'),
        limit: count('Characters to return at most (default and maximum 100000)'),
      },
      ['documentId'],
    ),
    annotations: read,
  },
  {
    name: 'wikiGetBlockNoteSchema',
    title: 'Get the block JSON Schema',
    description:
      'The JSON Schema of contentJson (an array of BlockNote blocks: paragraph, heading, lists, quote, codeBlock, table, image, ...). Read it before writing contentJson.',
    inputSchema: input({}),
    annotations: read,
  },
  {
    name: 'wikiCreateDocument',
    title: 'Create a document',
    description:
      'Creates a document in a workspace (needs EDITOR or above). contentJson must match wikiGetBlockNoteSchema. Returns the document as wikiGetDocument does.',
    inputSchema: input(
      {
        workspaceName,
        title: { type: 'string', maxLength: 500, description: 'Title' },
        contentJson: {
          type: 'string',
          description: 'JSON string: an array of blocks, e.g. [{"type":"paragraph","content":"Hi"}]',
        },
        parentId: uuid('Optional parent document id (default: at the root)'),
      },
      ['workspaceName', 'title', 'contentJson'],
    ),
    annotations: write,
  },
  {
    name: 'wikiUpdateDocument',
    title: 'Update a document',
    description:
      'Overwrites the title and/or the whole content of a document (needs EDITOR or above). Pass the revision you read as lastRevision: if someone changed the document since, nothing is written and you are told its revision now. To add text at the end, use wikiAppendTextToDocument.',
    inputSchema: input(
      {
        workspaceName,
        documentId: uuid('Document id'),
        title: { type: 'string', maxLength: 500, description: 'New title' },
        contentJson: { type: 'string', description: 'New content: JSON string of an array of blocks' },
        lastRevision: count('The revision you read (wikiGetDocument): refuse to write if it moved on'),
      },
      ['workspaceName', 'documentId'],
    ),
    annotations: { ...write, idempotentHint: true },
  },
  {
    name: 'wikiAppendTextToDocument',
    title: 'Append text to a document',
    description:
      'Appends plain text at the end of a document as paragraphs (a blank line starts a new paragraph), to its content as it is when the text arrives: what others write meanwhile stays. Needs EDITOR or above.',
    inputSchema: input(
      {
        workspaceName,
        documentId: uuid('Document id'),
        textToAppend: { type: 'string', minLength: 1, maxLength: 1000000, description: 'Plain text to add' },
      },
      ['workspaceName', 'documentId', 'textToAppend'],
    ),
    annotations: write,
  },
  {
    name: 'wikiDeleteDocument',
    title: 'Archive a document',
    description:
      'Archives a document (soft delete: it and its sub-documents leave lists and search; a user can restore it in the wiki). Needs EDITOR or above.',
    inputSchema: input({ workspaceName, documentId: uuid('Document id') }, ['workspaceName', 'documentId']),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'wikiListRevisions',
    title: "List a document's revisions",
    description:
      'The history of a document, newest first: revision id, revision number, title, name (named revisions are kept forever), source (EDIT, COLLAB, MCP, RESTORE, IMPORT), createdAt, who made it, wordCount.',
    inputSchema: input(
      { workspaceName, documentId: uuid('Document id'), page: count('Page, from 0 (default 0)'), size: limit(100, 20) },
      ['workspaceName', 'documentId'],
    ),
    annotations: read,
  },
  {
    name: 'wikiRestoreRevision',
    title: 'Restore a revision',
    description:
      "Makes a revision's title, content, icon and cover the document's current ones (a new revision; the history keeps everything). Needs EDITOR or above.",
    inputSchema: input({ workspaceName, documentId: uuid('Document id'), revisionId: uuid('Revision id') }, [
      'workspaceName',
      'documentId',
      'revisionId',
    ]),
    annotations: write,
  },
];

export const SERVER_INSTRUCTIONS =
  'Tools of a self-hosted wiki, acting as the user who owns the API key with that user\'s roles. Find a workspace with wikiListWorkspaces, its documents with wikiListDocuments or wikiSearch, read one with wikiGetDocument. Before writing contentJson read wikiGetBlockNoteSchema. A failed call answers {"error": "..."}.';
