import type { Json } from './blocks.js';

/** A document to be, as found in the upload, before its content is converted. */
export interface SourceDoc {
  /** The archive path of its file, or of its folder with a trailing `/` when it has no file. */
  path: string;
  /** The title when nothing better is found: the file or folder name. */
  fallbackTitle: string;
  /** Converts the file (null for a folder without a file of its own). */
  convert: (() => Promise<Converted>) | null;
  children: SourceDoc[];
  /** Other archive paths that mean this document: the folder whose document its file is. */
  aliases?: string[];
}

export interface Converted {
  /** A title the file states apart from its text: front matter, `<title>`, Confluence's page title. */
  title: string | null;
  blocks: Json[];
  /** Problems the converter reported (mammoth's messages). */
  messages?: string[];
}
