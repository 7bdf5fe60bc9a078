/**
 * Where a change of a document comes from (ARCHITECTURE 5.16): a person's REST edit, a collab
 * save, a tool call of the MCP service, a restore of a revision, an import. Each write hands it to
 * the history trigger with the change (documents.edit_source), which keeps it on the revision.
 */
export const EDIT_SOURCES = ['EDIT', 'COLLAB', 'MCP', 'RESTORE', 'IMPORT'] as const;
export type EditSource = (typeof EDIT_SOURCES)[number];
