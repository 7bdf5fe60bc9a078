import { createHash } from 'node:crypto';
import { type Block, type BlockPrint, type MergeOp, planMergeOnPrints } from '@wiki/blocks';
import * as Y from 'yjs';
import { type BlockEditor, FRAGMENT } from './block-editor.js';
import { seededClientId } from './domain/blocks.js';

/**
 * Taking a REST/MCP/restore write into an open room block by block (ARCHITECTURE 5.16): only the
 * top-level blocks the write changed relative to the room's base are inserted, deleted, replaced
 * or moved, so someone typing in another block keeps their text.
 */

/** The room's Y.Doc is not laid out as its blocks say (one blockGroup of blockContainers): no plan fits it. */
export class RoomShapeMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoomShapeMismatch';
  }
}

const BLOCK_GROUP = 'blockGroup';
const BLOCK_CONTAINER = 'blockContainer';

/** The blockGroup holding one blockContainer per block of `blocks`, ids in the same order. */
function blockGroupOf(fragment: Y.XmlFragment, blocks: readonly Block[]): Y.XmlElement {
  const group = fragment.length === 1 ? fragment.get(0) : undefined;
  if (!(group instanceof Y.XmlElement) || group.nodeName !== BLOCK_GROUP) {
    throw new RoomShapeMismatch(`expected one ${BLOCK_GROUP} at the top of the fragment`);
  }
  if (group.length !== blocks.length) {
    throw new RoomShapeMismatch(`the ${BLOCK_GROUP} holds ${group.length} children for ${blocks.length} blocks`);
  }
  group.forEach((child, i) => {
    if (
      !(child instanceof Y.XmlElement) ||
      child.nodeName !== BLOCK_CONTAINER ||
      child.getAttribute('id') !== blocks[i]?.id
    ) {
      throw new RoomShapeMismatch(`child ${i} of the ${BLOCK_GROUP} is not the container of block ${blocks[i]?.id}`);
    }
  });
  return group;
}

/** The blocks as BlockNote lays them out, one detached blockContainer each (to be cloned into a room). */
function containersOf(editor: BlockEditor, blocks: readonly Block[]): Y.XmlElement[] {
  if (blocks.length === 0) return [];
  const scratch = new Y.Doc();
  const fragment = scratch.getXmlFragment(FRAGMENT);
  editor.blocksToYXmlFragment([...blocks], fragment);
  const group = fragment.get(0);
  const containers = group instanceof Y.XmlElement ? group.toArray() : [];
  if (containers.length !== blocks.length || !containers.every((c) => c instanceof Y.XmlElement)) {
    throw new RoomShapeMismatch(`BlockNote laid out ${containers.length} containers for ${blocks.length} blocks`);
  }
  return containers as Y.XmlElement[];
}

export interface RoomWrite {
  documentId: string;
  /** The content revision of the write. */
  revision: number;
  /** What the room last stored or loaded (the write's base), as prints. */
  base: readonly BlockPrint[];
  /** The room's blocks now, as the room's Y.Doc holds them. */
  mine: readonly Block[];
  /** The written blocks, laid out by BlockNote as a room would hold them (ids seeded). */
  theirs: readonly Block[];
}

/**
 * Applies to the room only what the write changed (planMergeOnPrints), in one transaction with
 * `origin`, and answers the steps. The items are made under a client id derived from the
 * document, the revision, the plan, the room's blocks and its state vector: replicas holding the
 * same room make the very same items (Yjs then keeps one copy), while replicas that differ make
 * distinct ones rather than two different items under one id. Throws RoomShapeMismatch, before
 * changing anything, when the Y.Doc is not laid out as `mine` says.
 */
export function applyWrite(doc: Y.Doc, editor: BlockEditor, write: RoomWrite, origin: unknown): MergeOp[] {
  const plan = planMergeOnPrints(write.base, write.mine, write.theirs);
  if (plan.length === 0) return plan;
  const group = blockGroupOf(doc.getXmlFragment(FRAGMENT), write.mine);
  const built = containersOf(
    editor,
    plan.flatMap((step) => (step.op === 'insert' || step.op === 'replace' ? [step.block] : [])),
  );
  const step = createHash('sha256')
    .update(JSON.stringify(plan))
    .update(JSON.stringify(write.mine))
    .update(Y.encodeStateVector(doc))
    .digest('base64url');
  const ownClientId = doc.clientID;
  doc.clientID = seededClientId(write.documentId, write.revision, step);
  try {
    doc.transact(() => {
      let next = 0;
      const nextBuilt = () => {
        const container = built[next++];
        if (!container) throw new RoomShapeMismatch('fewer containers than steps');
        return container.clone();
      };
      for (const op of plan) {
        switch (op.op) {
          case 'insert':
            group.insert(op.index, [nextBuilt()]);
            break;
          case 'delete':
            group.delete(op.index, 1);
            break;
          case 'replace':
            group.delete(op.index, 1);
            group.insert(op.index, [nextBuilt()]);
            break;
          case 'move': {
            // Yjs has no move: the block as the room holds it now is copied to its new place.
            const moving = group.get(op.from);
            if (!(moving instanceof Y.XmlElement)) throw new RoomShapeMismatch(`no block at ${op.from} to move`);
            const copy = moving.clone();
            group.delete(op.from, 1);
            group.insert(op.to, [copy]);
            break;
          }
        }
      }
    }, origin);
  } finally {
    doc.clientID = ownClientId;
  }
  return plan;
}

/**
 * The old way, kept as the fallback: the room's whole top level gives way to `fresh` (a Y.Doc
 * built from the written content under its own seeded client id).
 */
export function replaceWhole(doc: Y.Doc, fresh: Y.Doc, origin: unknown): void {
  doc.transact(() => {
    const fragment = doc.getXmlFragment(FRAGMENT);
    const children = fragment.toArray();
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const item = (children[i] as Y.XmlElement)._item;
      if (item?.id.client !== fresh.clientID) fragment.delete(i, 1);
    }
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(fresh));
  }, origin);
}
