import { idParams, notBlank, nullableString, object, stringEnum, Type, timestamp, uuid, withDefault } from '@wiki/http';
import { EDIT_SOURCES } from '../domain/edit-source.js';
import { userRef } from './schemas.js';

/** Shapes of the history routes (ARCHITECTURE 5.16). */

export const NAME_MAX = 200;

export const revisionParams = idParams('id', 'revisionId');

const summaryProperties = {
  id: uuid,
  documentId: uuid,
  revision: Type.Integer({ description: 'The document revision this row holds (the last change folded into it)' }),
  title: Type.String(),
  name: nullableString,
  source: stringEnum(EDIT_SOURCES),
  createdAt: timestamp,
  createdBy: userRef,
  contributors: Type.Array(userRef),
  wordCount: Type.Integer(),
};

/** Every property of the object is required (the answers always carry them all). */
const allOf = <P extends object>(properties: P) => Object.keys(properties) as (keyof P & string)[];

export const revisionSummary = object(summaryProperties, allOf(summaryProperties));

const revisionProperties = {
  ...summaryProperties,
  content: Type.String({ description: 'The block-editor JSON array, as a string' }),
  icon: nullableString,
  coverImageUrl: nullableString,
};

export const revisionResponse = object(revisionProperties, allOf(revisionProperties));

export const nameBody = object({ name: notBlank(NAME_MAX) }, ['name']);

export const diffQuery = object({
  against: withDefault(
    Type.Union([stringEnum(['current']), uuid], {
      description: '"current" (the document as it is now) or the id of another revision of the document',
    }),
    'current',
  ),
});

const WORD_OPS = ['equal', 'insert', 'delete'] as const;
export const BLOCK_CHANGES = ['added', 'removed', 'changed', 'moved'] as const;

export const diffResponse = object(
  {
    from: Type.Integer({ description: 'The revision number of the path’s revision' }),
    to: Type.Integer({ description: 'The revision number of `against` (the document’s revision for current)' }),
    blocks: Type.Array(
      object(
        {
          blockId: Type.String(),
          change: stringEnum(BLOCK_CHANGES),
          text: Type.Array(object({ op: stringEnum(WORD_OPS), text: Type.String() }, ['op', 'text']), {
            description: 'For a changed block: its text from `from` to `to`, word by word',
          }),
        },
        ['blockId', 'change'],
      ),
      { description: 'Only the blocks that differ, how to get from `from` to `to`' },
    ),
  },
  ['from', 'to', 'blocks'],
);
