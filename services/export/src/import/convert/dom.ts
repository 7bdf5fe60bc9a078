import { defaultTreeAdapter as adapter, html, parse, serialize, type DefaultTreeAdapterTypes as T } from 'parse5';

/** A few DOM-like steps over parse5's tree (the browser's own HTML parsing, no DOM types needed). */

export type Element = T.Element;
export type Node = T.Node;
type Parent = T.ParentNode;

export const parseDocument = (source: string): T.Document => parse(source.replace(/^\uFEFF/, ''));

const isElement = (node: Node): node is Element => 'tagName' in node;

/** Every element below `root`, in document order (walked without recursion). */
export function elements(root: Parent): Element[] {
  const out: Element[] = [];
  const stack: Node[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (!isElement(node)) continue;
    out.push(node);
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]);
  }
  return out;
}

export const attr = (element: Element, name: string): string | null =>
  element.attrs.find((a) => a.name === name)?.value ?? null;

export const hasClass = (element: Element, name: string): boolean =>
  (attr(element, 'class') ?? '').split(/\s+/).includes(name);

export const byTag = (root: Parent, ...tags: string[]): Element[] =>
  elements(root).filter((element) => tags.includes(element.tagName));

export const byId = (root: Parent, id: string): Element | undefined =>
  elements(root).find((element) => attr(element, 'id') === id);

/** The text a node holds, as `textContent` gives it. */
export function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as T.TextNode).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

export function replaceWith(node: T.ChildNode, ...nodes: T.ChildNode[]): void {
  const parent = node.parentNode;
  if (!parent) return;
  const at = parent.childNodes.indexOf(node);
  for (const moved of nodes) {
    if (moved.parentNode) adapter.detachNode(moved);
    moved.parentNode = parent;
  }
  parent.childNodes.splice(at, 1, ...nodes);
  node.parentNode = null;
}

export const remove = (node: T.ChildNode): void => adapter.detachNode(node);

export function element(tagName: string, attrs: Record<string, string> = {}, children: T.ChildNode[] = []): Element {
  const created = adapter.createElement(
    tagName,
    html.NS.HTML,
    Object.entries(attrs).map(([name, value]) => ({ name, value })),
  );
  for (const child of children) adapter.appendChild(created, child);
  return created;
}

export const text = (value: string): T.TextNode => adapter.createTextNode(value);

/** The HTML inside a node (its children serialised). */
export const innerHtml = (node: Parent): string => serialize(node);
