import type { DocumentListItem } from '../../api/types';

/** What the tree knows of one expanded document's children. */
export interface ChildList {
  items?: DocumentListItem[];
  loading: boolean;
  error: Error | null;
}

/** One visible row of the tree: a document with its place (WAI-ARIA level, set size, position). */
export interface TreeRow {
  item: DocumentListItem;
  /** 1 for root documents. */
  level: number;
  /** 1-based position among its siblings. */
  posinset: number;
  setsize: number;
  /** The list it is shown in (its siblings and itself, in order). */
  siblings: readonly DocumentListItem[];
  /** Undefined for a leaf; otherwise whether its children are shown. */
  expanded: boolean | undefined;
  /** Its children are being fetched. */
  loading: boolean;
  /** The ids of its ancestors, from the root down. */
  path: readonly string[];
}

export const UNTITLED = 'Untitled';

/** The name a document goes by in the tree. */
export function displayTitle(item: { title: string }): string {
  return item.title.trim() || UNTITLED;
}

/**
 * The visible rows, depth first: the roots, and below each expanded document the children fetched
 * for it. Costs one step per visible row, whatever the size of the workspace.
 */
export function flattenTree(
  roots: readonly DocumentListItem[],
  children: ReadonlyMap<string, ChildList>,
  expanded: ReadonlySet<string>,
): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (list: readonly DocumentListItem[], level: number, path: readonly string[]) => {
    list.forEach((item, index) => {
      const fetched = expanded.has(item.id) ? children.get(item.id) : undefined;
      const hasChildren = item.hasChildren || (fetched?.items?.length ?? 0) > 0;
      const open = hasChildren && expanded.has(item.id);
      rows.push({
        item,
        level,
        posinset: index + 1,
        setsize: list.length,
        siblings: list,
        expanded: hasChildren ? open : undefined,
        loading: open && (fetched?.loading ?? true),
        path,
      });
      if (open && fetched?.items) visit(fetched.items, level + 1, [...path, item.id]);
    });
  };
  visit(roots, 1, []);
  return rows;
}

/** Whether `row` is `id` itself or lies below it: where `id` cannot be moved. */
export function isWithin(row: TreeRow, id: string): boolean {
  return row.item.id === id || row.path.includes(id);
}
