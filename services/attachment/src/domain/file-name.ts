/** The longest file name kept (what the client sent, shown back in fileName). */
export const FILE_NAME_MAX = 255;
/** The longest name segment of a storage key. */
const KEY_NAME_MAX = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * The file name as shown back: what the client sent, without any folder part, control
 * characters or bidirectional overrides (which disguise `evil‮fdp.exe` as `evil.pdf`), at most
 * FILE_NAME_MAX characters, `file` when nothing is left.
 */
export function displayName(raw: string | undefined): string {
  const base = (raw ?? '').normalize('NFC').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(CONTROL, '').trim();
  if (clean === '' || clean === '.' || clean === '..') return 'file';
  return [...clean].slice(0, FILE_NAME_MAX).join('');
}

/**
 * The last segment of a storage key: ASCII letters, digits, `.`, `-` and `_` only, no leading
 * dot, at most KEY_NAME_MAX characters keeping the extension; `file` when nothing is left.
 */
export function keySafeName(display: string): string {
  const ascii = display
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._]+|[._]+$/g, '');
  if (ascii === '') return 'file';
  if (ascii.length <= KEY_NAME_MAX) return ascii;
  const dot = ascii.lastIndexOf('.');
  const ext = dot > 0 && ascii.length - dot <= 16 ? ascii.slice(dot) : '';
  return ascii.slice(0, KEY_NAME_MAX - ext.length) + ext;
}

/** `workspaces/<ws>/documents/<doc>/<uuid>/<safe-name>` (ARCHITECTURE 5.9). */
export function storageKeyOf(workspaceId: string, documentId: string, id: string, name: string): string {
  return `workspaces/${workspaceId}/documents/${documentId}/${id}/${keySafeName(name)}`;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const KEY = new RegExp(
  `^workspaces/${UUID}/documents/${UUID}/${UUID}/[A-Za-z0-9][A-Za-z0-9._-]{0,${KEY_NAME_MAX - 1}}$`,
);

/** Whether `key` has the shape of a key this service makes (anything else cannot have a record). */
export const isWellFormedKey = (key: string) => KEY.test(key);

/**
 * `Content-Disposition` with the name in both forms (RFC 6266): an ASCII `filename` for old
 * clients and `filename*` in UTF-8 (RFC 5987) that every current browser prefers.
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
