import { posix } from 'node:path';

/** Notion's export appends a space and the page's 32-hex id to every page's file and folder name. */
const NOTION_ID = /\s+([0-9a-f]{32})$/i;

/** A file or folder name without its extension (`.md`, `.html`, ...) for files. */
export function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

export const extensionOf = (path: string): string => {
  const name = posix.basename(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};

/** A stem's Notion id (lower case), if it has one. */
export const notionId = (name: string): string | null => NOTION_ID.exec(name)?.[1].toLowerCase() ?? null;

/** A title made from a file or folder name: the extension and Notion's id left out. */
export function titleFromName(name: string): string {
  const title = name.replace(NOTION_ID, '').trim();
  return title === '' ? name : title;
}

/**
 * What a file and a folder beside it are matched by: Notion's id where there is one (Notion
 * shortens long folder names differently from file names), else the name itself.
 */
export const matchKey = (name: string): string => notionId(name) ?? name;

/**
 * The archive path a relative reference in the file at `from` points to: query and fragment
 * dropped, percent-escapes decoded (Notion encodes every space), `.` and `..` resolved; null for
 * absolute URLs, site paths (`/x`) and paths that climb out of the archive.
 */
export function resolveRelative(from: string, href: string): string | null {
  const raw = href.trim().replace(/[?#].*$/, '');
  if (raw === '' || raw.startsWith('/') || raw.startsWith('\\') || /^[a-z][a-z0-9+.-]*:/i.test(raw)) return null;
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // a lone `%`: the text is the name
  }
  const joined = posix.normalize(posix.join(posix.dirname(from), decoded.replace(/\\/g, '/'))).normalize('NFC');
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined;
}
