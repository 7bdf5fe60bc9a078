import { randomUUID } from 'node:crypto';
import {
  HocuspocusProvider,
  type HocuspocusProviderConfiguration,
  HocuspocusProviderWebsocket,
} from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { eventually } from './names.js';
import type { Stack } from './stack.js';

/**
 * A collaborative editor as a test drives it: the real Hocuspocus client in Node, with what the
 * server told it, and BlockNote's layout of the Y.Doc read and typed into. Shared by the collab
 * service's tests, the MCP tests and the end-to-end behaviours at two replicas.
 */

/** The Y.Doc fragment BlockNote keeps a document in (ARCHITECTURE 5.15). */
export const COLLAB_FRAGMENT = 'document-store';

export interface CollabEditor {
  provider: HocuspocusProvider;
  doc: Y.Doc;
  /** Stateless messages the server sent (access changes). */
  stateless: string[];
  /** Reasons of permission-denied answers. */
  denied: string[];
  closed: number;
  /** Code and reason of each close (of the socket, or of this document on it). */
  closes: Array<{ code: number; reason: string }>;
  text(): string;
  destroy(): void;
}

/** The document's text, one line per paragraph (the BlockNote layout in fragment document-store). */
export function textOf(doc: Y.Doc): string {
  const lines: string[] = [];
  const walk = (node: Y.XmlElement | Y.XmlFragment) => {
    for (const child of node.toArray()) {
      if (child instanceof Y.XmlText) {
        lines.push(
          child
            .toDelta()
            .map((d: { insert: unknown }) => (typeof d.insert === 'string' ? d.insert : ''))
            .join(''),
        );
      } else if (child instanceof Y.XmlElement) walk(child);
    }
  };
  walk(doc.getXmlFragment(COLLAB_FRAGMENT));
  return lines.filter((l) => l !== '').join('\n');
}

/** Appends a paragraph the way BlockNote does: blockGroup > blockContainer[id] > paragraph > text. */
export function typeParagraph(doc: Y.Doc, text: string): void {
  doc.transact(() => {
    const fragment = doc.getXmlFragment(COLLAB_FRAGMENT);
    let group = fragment
      .toArray()
      .find((n): n is Y.XmlElement => n instanceof Y.XmlElement && n.nodeName === 'blockGroup');
    if (!group) {
      group = new Y.XmlElement('blockGroup');
      fragment.insert(fragment.length, [group]);
    }
    const container = new Y.XmlElement('blockContainer');
    container.setAttribute('id', randomUUID());
    const paragraph = new Y.XmlElement('paragraph');
    const xmlText = new Y.XmlText();
    xmlText.insert(0, text);
    paragraph.insert(0, [xmlText]);
    container.insert(0, [paragraph]);
    group.insert(group.length, [container]);
  });
}

/**
 * Connects a Node provider (the real Hocuspocus client) to `url` for document `name` with `token`;
 * `options` go to the provider (e.g. `awareness: null`).
 */
export function connectEditor(
  url: string,
  name: string,
  token: string,
  options: Partial<Pick<HocuspocusProviderConfiguration, 'awareness'>> = {},
): CollabEditor {
  const socket = new HocuspocusProviderWebsocket({
    url,
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    autoConnect: false,
  });
  const doc = new Y.Doc();
  const editor: CollabEditor = {
    provider: undefined as unknown as HocuspocusProvider,
    doc,
    stateless: [],
    denied: [],
    closed: 0,
    closes: [],
    text: () => textOf(doc),
    destroy: () => {
      editor.provider.destroy();
      socket.destroy();
    },
  };
  editor.provider = new HocuspocusProvider({
    websocketProvider: socket,
    name,
    document: doc,
    token,
    onStateless: ({ payload }) => editor.stateless.push(payload),
    onAuthenticationFailed: ({ reason }) => editor.denied.push(reason),
    onClose: ({ event }) => {
      editor.closed += 1;
      editor.closes.push({ code: event.code, reason: event.reason });
    },
    ...options,
  });
  editor.provider.attach();
  socket.connect().catch(() => undefined);
  return editor;
}

export const collabUrl = (stack: Stack) => `${stack.gatewayUrl.replace(/^http/, 'ws')}/collab`;

/** Waits until the provider is authenticated and has the server's state. */
export async function synced(editor: CollabEditor): Promise<CollabEditor> {
  await eventually(() => {
    if (editor.denied.length > 0) throw new Error(`denied: ${editor.denied.join(', ')}`);
    if (!editor.provider.isSynced) throw new Error('not synced yet');
  });
  return editor;
}

export async function deniedReason(editor: CollabEditor): Promise<string> {
  return eventually(() => {
    if (editor.denied.length === 0) throw new Error('not denied yet');
    return editor.denied[0]!;
  });
}

/** The document as the REST API returns it. */
export async function restDocument(stack: Stack, token: string, id: string) {
  const res = await stack.request('GET', `/api/v1/documents/${id}`, { token });
  if (res.status !== 200) throw new Error(`GET document ${res.status}`);
  return res.body.data as { content: string; lastEditedBy: string | null; title: string };
}

/** The blockContainer of block `id` (BlockNote's layout: blockGroup > blockContainer[id]). */
function containerOf(doc: Y.Doc, id: string): Y.XmlElement {
  const group = doc.getXmlFragment(COLLAB_FRAGMENT).get(0);
  const container =
    group instanceof Y.XmlElement
      ? group.toArray().find((n): n is Y.XmlElement => n instanceof Y.XmlElement && n.getAttribute('id') === id)
      : undefined;
  if (!container) throw new Error(`no block ${id} in the editor`);
  return container;
}

/** Types `text` at the end of block `id`'s own text, as an editor's keystrokes would. */
export function typeInto(doc: Y.Doc, id: string, text: string): void {
  const content = containerOf(doc, id).get(0);
  const xmlText = content instanceof Y.XmlElement ? content.get(0) : undefined;
  if (!(xmlText instanceof Y.XmlText)) throw new Error(`block ${id} holds no text`);
  xmlText.insert(xmlText.length, text);
}

/** The top-level blocks' texts of stored content, in order. */
export function storedTexts(content: string): string[] {
  const blocks = JSON.parse(content) as Array<{ content?: Array<{ text?: string }> }>;
  return blocks.map((b) => (Array.isArray(b.content) ? b.content.map((c) => c.text ?? '').join('') : ''));
}
