import { type DerivedText, deriveText } from '@wiki/blocks';
import { AppError, invalidField } from '@wiki/http';
import { DEFAULT_TITLE } from '../commands/create-document.js';
import { emptyContent, parseContent } from './content.js';

/** Documents one import call may create (ARCHITECTURE 5.19): a larger import comes in several calls. */
export const IMPORT_MAX_DOCUMENTS = 1000;

/** One document of an import call, as the caller (the export service's import job) sends it. */
export interface ImportedDocumentInput {
  /** Chosen by the caller, so that links between the imported documents can be final before they exist. */
  id: string;
  /** A document of this call, one an earlier call of the same import made, or null: the import's place. */
  parentId?: string | null;
  title?: string;
  content?: unknown;
  icon?: string | null;
  /** Order among its siblings (ascending; ties keep the order of the call). */
  position?: number;
}

export interface PlannedDocument {
  id: string;
  /** Resolved: null only for a root document of the workspace. */
  parentId: string | null;
  title: string;
  content: string;
  text: DerivedText;
  icon: string | null;
}

export interface ImportPlan {
  /** Parents before their children, siblings in their order: positions are handed out in this order. */
  documents: PlannedDocument[];
  /** Parents named by the call that are neither in it nor the import's place: an earlier call must have made them. */
  earlierParents: string[];
}

/** A content refusal of parseContent, made to name the document it is about. */
function aboutDocument(error: unknown, index: number): unknown {
  if (!(error instanceof AppError)) return error;
  const field = `documents[${index}].content`;
  const details = error.details?.map((d) => ({ ...d, field: `documents[${index}].${d.field}` })) ?? [
    { field, message: error.message },
  ];
  return new AppError(error.code, `${field}: ${error.message}`, details, error.reason);
}

/**
 * Checks one import call and puts its documents in the order they are created: ids unique and
 * not the import's parent, every parent known (see ImportedDocumentInput.parentId), no cycle,
 * content as the public API takes it (a 400 or a 413 naming `documents[i]`).
 */
export function planImport(importParentId: string | null, inputs: readonly ImportedDocumentInput[]): ImportPlan {
  const index = new Map<string, number>();
  inputs.forEach((doc, i) => {
    const id = doc.id.toLowerCase();
    if (index.has(id)) throw invalidField(`documents[${i}].id`, 'appears twice in the call');
    if (id === importParentId) throw invalidField(`documents[${i}].id`, 'is the parent the import goes under');
    index.set(id, i);
  });
  const parentOf = inputs.map((doc, i) => {
    const parent = doc.parentId?.toLowerCase() ?? importParentId;
    if (parent === doc.id.toLowerCase()) throw invalidField(`documents[${i}].parentId`, 'is the document itself');
    return parent;
  });
  // Walk up through the call's own documents: a walk longer than the call is a cycle.
  inputs.forEach((_, i) => {
    let at = parentOf[i];
    for (let steps = 0; at !== null && index.has(at); steps++) {
      if (steps > inputs.length) throw invalidField(`documents[${i}].parentId`, 'makes a cycle');
      at = parentOf[index.get(at) as number];
    }
  });

  const children = new Map<string | null, number[]>();
  const tops: number[] = [];
  const earlier = new Set<string>();
  parentOf.forEach((parent, i) => {
    if (parent !== null && index.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(i);
      children.set(parent, list);
    } else {
      tops.push(i);
      if (parent !== null && parent !== importParentId) earlier.add(parent);
    }
  });
  const bySiblingOrder = (a: number, b: number) => (inputs[a].position ?? a) - (inputs[b].position ?? b) || a - b;

  // Breadth first from the tops: parents first, siblings in order.
  const order: number[] = [];
  let level = tops.sort(bySiblingOrder);
  while (level.length > 0) {
    order.push(...level);
    level = level.flatMap((i) => (children.get(inputs[i].id.toLowerCase()) ?? []).sort(bySiblingOrder));
  }

  const documents = order.map((i) => {
    const input = inputs[i];
    let content: ReturnType<typeof parseContent>;
    try {
      content = input.content === undefined || input.content === null ? emptyContent() : parseContent(input.content);
    } catch (error) {
      throw aboutDocument(error, i);
    }
    return {
      id: input.id.toLowerCase(),
      parentId: parentOf[i],
      title: input.title ?? DEFAULT_TITLE,
      content: content.json,
      text: deriveText(content.blocks),
      icon: input.icon ?? null,
    };
  });
  return { documents, earlierParents: [...earlier] };
}
