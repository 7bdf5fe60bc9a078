/** What a tree export writes each document as (ARCHITECTURE 5.19). */
export const TREE_FORMATS = ['markdown', 'html', 'pdf', 'docx'] as const;
export type TreeFormat = (typeof TREE_FORMATS)[number];

export const TREE_EXTENSIONS: Record<TreeFormat, string> = { markdown: 'md', html: 'html', pdf: 'pdf', docx: 'docx' };

/** What an export job was asked (the row's params): ids and options only. */
export interface TreeExportParams {
  format: TreeFormat;
  /** The document it starts from; absent for a whole workspace. */
  documentId?: string;
  includeChildren: boolean;
  /** What the zip is called when downloaded (the document's or the workspace's name). */
  name: string;
}

export function parseTreeParams(params: Record<string, unknown>): TreeExportParams {
  const format = params.format as TreeFormat;
  if (!TREE_FORMATS.includes(format)) throw new Error(`unknown export format ${String(params.format)}`);
  return {
    format,
    documentId: typeof params.documentId === 'string' ? params.documentId : undefined,
    includeChildren: params.includeChildren !== false,
    name: typeof params.name === 'string' ? params.name : 'export',
  };
}
