/**
 * The document tree of a workspace (DocumentTreeResponse nodes, nested through `children`).
 *
 * The tree query returns every visible document as one text value, already in sibling order (by
 * position): one record per document, records separated by RECORD, fields by FIELD:
 *
 *   id FIELD parentId (empty for a root) FIELD updatedAt (Postgres UTC timestamp text) FIELD icon (empty: none) FIELD title
 *
 * The title comes last, so everything after the fourth separator is the title. Neither separator
 * can occur inside a field (the query replaces them). From that text, `treeJson` writes the JSON
 * array straight into a Buffer: no node objects, no intermediate strings of the whole answer.
 * For 10,000 documents that is several times less garbage than nesting objects and serialising
 * them, and garbage collection was the largest cost. It is O(n) and iterative, so a very deep tree
 * (a chain of thousands of documents) cannot overflow the stack.
 */
export const RECORD = '\x1e';
export const FIELD = '\x1f';

/** One document of the tree, as tests and callers think of it. */
export interface TreeRow {
  id: string;
  parentId: string | null;
  title: string;
  icon: string | null;
  /** Postgres text of the UTC timestamp, e.g. `2026-01-02 03:04:05.678901`. */
  updatedAtUtc: string;
}

/** `2026-01-02 03:04:05.678901` (Postgres text of a UTC timestamp) → `2026-01-02T03:04:05.678Z`, truncated like Date.parse. */
export function isoFromUtcText(text: string): string {
  const fraction = text.length > 20 ? `${text.slice(20, 23)}00`.slice(0, 3) : '000';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON must escape control characters
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const jsonString = (value: string) => (NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);

/**
 * The JSON array of the tree, between `before` and `after` (e.g. a response envelope). A document
 * whose parent is not among the records is a root (the tree rules make that impossible, but a
 * document must never vanish from its workspace's tree); documents in a parent cycle are
 * unreachable and left out.
 */
export function treeJson(records: string | null, workspaceId: string, before = '', after = ''): Buffer {
  if (!records) return Buffer.from(`${before}[]${after}`);
  const text = records;
  let n = 1;
  for (let i = text.indexOf(RECORD); i !== -1; i = text.indexOf(RECORD, i + 1)) n++;

  // Where each record starts and where its four field separators are.
  const start = new Int32Array(n + 1);
  const f1 = new Int32Array(n);
  const f2 = new Int32Array(n);
  const f3 = new Int32Array(n);
  const f4 = new Int32Array(n);
  const index = new Map<string, number>();
  let at = 0;
  for (let k = 0; k < n; k++) {
    start[k] = at;
    f1[k] = text.indexOf(FIELD, at);
    f2[k] = text.indexOf(FIELD, f1[k] + 1);
    f3[k] = text.indexOf(FIELD, f2[k] + 1);
    f4[k] = text.indexOf(FIELD, f3[k] + 1);
    if (f4[k] === -1) throw new Error(`tree record ${k} is malformed`);
    const end = text.indexOf(RECORD, f4[k] + 1);
    at = end === -1 ? text.length + 1 : end + 1;
    index.set(text.slice(start[k], f1[k]), k);
  }
  start[n] = text.length + 1;

  // Children as linked lists in sibling order: first child, last child, next sibling.
  const firstChild = new Int32Array(n).fill(-1);
  const lastChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const roots: number[] = [];
  for (let k = 0; k < n; k++) {
    const p = f2[k] === f1[k] + 1 ? undefined : index.get(text.slice(f1[k] + 1, f2[k]));
    if (p === undefined || p === k) {
      roots.push(k);
    } else if (firstChild[p] === -1) {
      firstChild[p] = lastChild[p] = k;
    } else {
      nextSibling[lastChild[p]] = k;
      lastChild[p] = k;
    }
  }

  let out = Buffer.allocUnsafe(text.length * 2 + n * 120 + 64);
  let length = 0;
  // Small pieces gather in a short string that is encoded into the buffer every ~16 KB: one
  // native call per chunk instead of one per node, and no string as large as the answer.
  let pending = '';
  const flush = () => {
    if (length + pending.length * 3 > out.length) {
      const bigger = Buffer.allocUnsafe(out.length * 2 + pending.length * 3);
      out.copy(bigger, 0, 0, length);
      out = bigger;
    }
    length += out.write(pending, length);
    pending = '';
  };
  const write = (s: string) => {
    pending += s;
    if (pending.length > 16_384) flush();
  };
  const middle = `,"workspaceId":${JSON.stringify(workspaceId)},"icon":`;
  const open = (k: number, comma: boolean) => {
    const id = text.slice(start[k], f1[k]);
    const parent = f2[k] === f1[k] + 1 ? 'null' : `"${text.slice(f1[k] + 1, f2[k])}"`;
    const icon = f4[k] === f3[k] + 1 ? 'null' : jsonString(text.slice(f3[k] + 1, f4[k]));
    const title = jsonString(text.slice(f4[k] + 1, start[k + 1] - 1));
    const updatedAt = isoFromUtcText(text.slice(f2[k] + 1, f3[k]));
    write(
      `${comma ? ',' : ''}{"id":"${id}","title":${title},"parentId":${parent}${middle}${icon},"updatedAt":"${updatedAt}","children":[`,
    );
  };

  write(`${before}[`);
  // For every open node, the next of its children to write (-1: all written).
  const cursor: number[] = [];
  for (let r = 0; r < roots.length; r++) {
    open(roots[r], r > 0);
    cursor.push(firstChild[roots[r]]);
    let first = true;
    while (cursor.length > 0) {
      const k = cursor[cursor.length - 1];
      if (k === -1) {
        cursor.pop();
        write(']}');
        first = false; // what follows at the parent's level is a sibling
        continue;
      }
      open(k, !first);
      cursor[cursor.length - 1] = nextSibling[k];
      cursor.push(firstChild[k]);
      first = true;
    }
  }
  write(`]${after}`);
  flush();
  return out.subarray(0, length);
}
