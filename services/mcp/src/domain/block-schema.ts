import { Ajv, type ErrorObject } from 'ajv';

/**
 * The block model the wiki stores (BlockNote's JSON, ARCHITECTURE 5.7) as a JSON Schema. The same
 * object is what `wikiGetBlockNoteSchema` hands an assistant and what create/update validate
 * `contentJson` against, so the two cannot drift apart.
 */

/**
 * A JSON Schema if/then pair. Built from entries because an object literal with a `then` key reads
 * as a thenable to linters (and to `await`; these objects are never awaited).
 */
function ifThen(condition: object, consequence: object): object {
  return Object.fromEntries([
    ['if', condition],
    ['then', consequence],
  ]);
}

const color = { type: 'string', maxLength: 50 };
const styles = {
  type: 'object',
  description: 'Text styles; absent keys mean off',
  properties: {
    bold: { type: 'boolean' },
    italic: { type: 'boolean' },
    underline: { type: 'boolean' },
    strike: { type: 'boolean' },
    code: { type: 'boolean' },
    textColor: color,
    backgroundColor: color,
  },
  additionalProperties: false,
};

const styledText = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' }, styles },
  additionalProperties: false,
};

const inline = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'link', 'mention'] } },
  allOf: [
    ifThen({ properties: { type: { const: 'text' } } }, styledText),
    ifThen(
      { properties: { type: { const: 'link' } } },
      {
        type: 'object',
        required: ['type', 'href', 'content'],
        properties: {
          type: { const: 'link' },
          href: { type: 'string', pattern: '^(https?:|mailto:|/|#)', maxLength: 2048 },
          content: { type: 'array', items: styledText },
        },
        additionalProperties: false,
      },
    ),
    ifThen(
      { properties: { type: { const: 'mention' } } },
      {
        type: 'object',
        required: ['type', 'props'],
        properties: { type: { const: 'mention' }, props: { type: 'object' } },
        additionalProperties: false,
      },
    ),
  ],
};

const inlineContent = {
  description: 'Inline content: an array of styled text, links and mentions (a plain string is read as unstyled text)',
  type: ['string', 'array'],
  items: { $ref: '#/definitions/inline' },
};

/** A cell: an array of inline content, or a tableCell object holding one (the keywords apply by type). */
const tableCell = {
  type: ['array', 'object'],
  items: { $ref: '#/definitions/inline' },
  required: ['type', 'content'],
  properties: {
    type: { const: 'tableCell' },
    props: { type: 'object' },
    content: { type: 'array', items: { $ref: '#/definitions/inline' } },
  },
  additionalProperties: false,
};

const tableContent = {
  type: 'object',
  required: ['type', 'rows'],
  properties: {
    type: { const: 'tableContent' },
    columnWidths: { type: 'array', items: { type: ['number', 'null'] } },
    headerRows: { type: 'integer', minimum: 0 },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['cells'],
        properties: { cells: { type: 'array', items: tableCell } },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

/** Props every text block takes. */
const textProps = {
  textColor: color,
  backgroundColor: color,
  textAlignment: { enum: ['left', 'center', 'right', 'justify'] },
};
const mediaProps = {
  url: { type: 'string', maxLength: 2048 },
  name: { type: 'string' },
  caption: { type: 'string' },
  showPreview: { type: 'boolean' },
  previewWidth: { type: ['number', 'null'] },
  backgroundColor: color,
  textAlignment: { enum: ['left', 'center', 'right', 'justify'] },
};

/** Block types with their props and the content they hold ('inline', 'table' or none). */
const BLOCK_TYPES: Record<string, { props: Record<string, unknown>; content: 'inline' | 'table' | 'none' }> = {
  paragraph: { props: textProps, content: 'inline' },
  heading: {
    props: { ...textProps, level: { enum: [1, 2, 3, 4, 5, 6] }, isToggleable: { type: 'boolean' } },
    content: 'inline',
  },
  bulletListItem: { props: textProps, content: 'inline' },
  numberedListItem: { props: { ...textProps, start: { type: 'integer', minimum: 0 } }, content: 'inline' },
  checkListItem: { props: { ...textProps, checked: { type: 'boolean' } }, content: 'inline' },
  toggleListItem: { props: textProps, content: 'inline' },
  quote: { props: textProps, content: 'inline' },
  codeBlock: { props: { language: { type: 'string', maxLength: 50 } }, content: 'inline' },
  table: { props: { textColor: color, backgroundColor: color }, content: 'table' },
  image: { props: mediaProps, content: 'none' },
  video: { props: mediaProps, content: 'none' },
  audio: { props: mediaProps, content: 'none' },
  file: { props: mediaProps, content: 'none' },
  divider: { props: {}, content: 'none' },
  pageBreak: { props: {}, content: 'none' },
};

export const BLOCK_TYPE_NAMES = Object.keys(BLOCK_TYPES);

function blockRule(type: string) {
  const spec = BLOCK_TYPES[type];
  const content =
    spec.content === 'inline'
      ? inlineContent
      : spec.content === 'table'
        ? tableContent
        : { description: 'This block holds no content', type: 'array', maxItems: 0 };
  return ifThen(
    { properties: { type: { const: type } } },
    { properties: { props: { type: 'object', properties: spec.props, additionalProperties: false }, content } },
  );
}

export const BLOCK_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Wiki document content (BlockNote blocks)',
  description:
    'contentJson is a JSON array of blocks. A block has a type, optional props, inline content (text blocks) or table content, and optional nested children (e.g. sub-items of a list item). Ids are optional; the editor assigns them.',
  type: 'array',
  items: { $ref: '#/definitions/block' },
  definitions: {
    inline,
    block: {
      type: 'object',
      required: ['type'],
      properties: {
        id: { type: 'string', maxLength: 100 },
        type: { enum: BLOCK_TYPE_NAMES },
        props: { type: 'object' },
        content: {},
        children: { type: 'array', items: { $ref: '#/definitions/block' } },
      },
      additionalProperties: false,
      allOf: BLOCK_TYPE_NAMES.map(blockRule),
    },
  },
  examples: [
    [
      { type: 'heading', props: { level: 2 }, content: [{ type: 'text', text: 'Plan', styles: {} }] },
      {
        type: 'paragraph',
        content: [
          { type: 'text', text: 'Ship on ', styles: {} },
          { type: 'text', text: 'Friday', styles: { bold: true } },
        ],
      },
      { type: 'bulletListItem', content: 'first point', children: [{ type: 'bulletListItem', content: 'detail' }] },
    ],
  ],
} as const;

const ajv = new Ajv({ allErrors: false, strict: false });
const validateBlocks = ajv.compile(BLOCK_JSON_SCHEMA);

/** The first problem of a contentJson in words, e.g. `[1].content[0].styles.bold must be boolean`; null when valid. */
export function blockProblem(value: unknown): string | null {
  if (validateBlocks(value)) return null;
  const errors = validateBlocks.errors ?? [];
  // An if/then failure is also reported as "must match then schema": the deepest error says what.
  let error: ErrorObject | undefined;
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    if (!error || e.instancePath.length > error.instancePath.length) error = e;
  }
  error ??= errors[0];
  return error ? describe(error) : 'does not match the block schema';
}

function describe(error: ErrorObject): string {
  const at = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  const where = at === '' ? 'contentJson' : `contentJson${at.startsWith('[') ? '' : '.'}${at}`;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where} has an unknown property "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'enum':
      return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${where} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return `${where} ${error.message ?? 'is not valid'}`;
  }
}

/**
 * Parses and checks a contentJson argument: a JSON string holding an array of blocks (an array
 * itself is taken too). Answers the blocks, or the problem in words.
 */
export function parseContentJson(input: unknown): { blocks: unknown[] } | { problem: string } {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      return { problem: `contentJson is not valid JSON (${(error as Error).message})` };
    }
  }
  const problem = blockProblem(value);
  return problem ? { problem } : { blocks: value as unknown[] };
}
