import fc from 'fast-check';
import { deref, type FuzzRoute, type Schema } from './routes.js';

/**
 * Generators of what a hostile or careless client sends: values that follow a route's schema most of
 * the time (so requests get past validation into the handlers) and, mixed in at every level, the
 * values that break code: wrong types, NUL, lone surrogates, huge strings, deep nesting, numbers out
 * of range, malformed JSON text and bytes that are not UTF-8.
 */

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.tuple(fc.string({ maxLength: 10 }), loneSurrogate).map(([s, half]) => `${s}${half}${s}`),
  fc.constantFrom('', ' ', '\t\n', 'null', 'undefined', '<script>alert(1)</script>', "'; DROP TABLE x; --", '%00'),
  fc.constantFrom('../../etc/passwd', '@[Name](not-a-uuid)', '@[X](00000000-0000-0000-0000-000000000000)'),
  fc.constantFrom(300, 5_000, 70_000).map((n) => 'é'.repeat(n)),
);

/**
 * Text the schema accepts (length within its bounds) whose characters break storage and parsing:
 * NUL, lone surrogates, any code point. These get past validation to the handlers and the database.
 */
function schemaText(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const hostile = fc.oneof(
    fc.constant('\u0000'),
    loneSurrogate,
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.string({ minLength, maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.string({ minLength: Math.max(minLength - 1, 0), maxLength: Math.max(maxLength - 1, 0) }),
          hostile,
          fc.nat(),
        )
        .map(([text, odd, at]) => {
          const cut = text.length === 0 ? 0 : at % text.length;
          return `${text.slice(0, cut)}${odd}${text.slice(cut)}`.slice(0, Math.max(maxLength, 1));
        }),
    },
  );
}

const hugeString = fc.constantFrom(1_100_000, 3_200_000).map((n) => 'x'.repeat(n));

const oddNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 31, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE, -0),
);

/** `[[[…]]]` or `{"a":{"a":…}}` nested `depth` levels. */
function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}
const deepValue = fc
  .tuple(fc.constantFrom(50, 250, 2_000), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, kind]) => nested(depth, kind));

/** BlockNote-like blocks with hostile text: document content reaches the deepest code. */
const blocks = fc.array(
  fc.record(
    {
      type: fc.constantFrom('paragraph', 'heading', 'bulletListItem', 'table', 'image', 'bogus', ''),
      id: fc.oneof(fc.uuid(), nastyString),
      props: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(nastyString, oddNumber, fc.boolean())),
      content: fc.oneof(
        fc.array(
          fc.record({ type: fc.constantFrom('text', 'link', 'mention'), text: nastyString, styles: fc.object() }),
        ),
        nastyString,
        fc.constant(null),
      ),
      children: fc.constant([]),
    },
    { requiredKeys: ['type'] },
  ),
  { maxLength: 4 },
);

export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: oddNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 2, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 5 }) },
  { weight: 1, arbitrary: blocks },
  { weight: 1, arbitrary: deepValue },
);

/** encodeURIComponent, which throws on a lone surrogate: a URL carries U+FFFD in its place. */
export function encodeText(text: string): string {
  return encodeURIComponent(
    text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** Real ids by kind (workspace, document, …), filled by the test from the resources it made. */
export type IdPool = Record<string, string[]>;

/** Which kind of id a path or body field named `name` (after `segment`) takes. */
export function idKind(name: string, segment = ''): string {
  const key = name === 'id' ? segment : name;
  if (/workspace/i.test(key)) return 'workspace';
  if (/document|parent/i.test(key)) return 'document';
  if (/thread/i.test(key)) return 'thread';
  if (/comment/i.test(key)) return 'comment';
  if (/invitation/i.test(key)) return 'invitation';
  if (/token/i.test(key)) return 'token';
  if (/mcp|key/i.test(key)) return 'mcpKey';
  if (/member/i.test(key)) return 'member';
  if (/user/i.test(key)) return 'user';
  return 'any';
}

function realId(ids: IdPool, kind: string): fc.Arbitrary<string> {
  const known = kind === 'any' ? Object.values(ids).flat() : (ids[kind] ?? []);
  return known.length > 0 ? fc.constantFrom(...known) : fc.uuid();
}

const garbageId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    '0',
    '-1',
    'null',
    '00000000-0000-0000-0000-000000000000',
    'ABCDEF00-1234-4000-8000-00000000000A',
    '%00',
    `${'1'.repeat(36)}%00`,
    'x'.repeat(600),
  ),
);

/** A path parameter: a real id of the right kind, an unknown UUID, or garbage. */
export function pathValue(ids: IdPool, kind: string): fc.Arbitrary<{ raw: string } | { text: string }> {
  return fc.oneof(
    { weight: 6, arbitrary: realId(ids, kind).map((text) => ({ text })) },
    { weight: 2, arbitrary: fc.uuid().map((text) => ({ text })) },
    { weight: 1, arbitrary: garbageId.map((text) => ({ text })) },
    // Sent as is: broken percent-escapes, encoded slashes and dots.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('%', '%zz', '%E0%A4%A', '..%2f..', '%2e%2e', '%C0%80', '%ED%A0%80', '%FF')
        .map((raw) => ({ raw })),
    },
  );
}

/**
 * Text for a string with a `pattern`: mostly text that matches it (an event id's digits, a colour,
 * a sort order), which a random string almost never does, so the handler behind it is reached.
 */
function patterned(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 60, 200);
  const anyText = schemaText(schema.minLength ?? 0, maxLength);
  let matching: fc.Arbitrary<string>;
  try {
    matching = fc.stringMatching(new RegExp(schema.pattern), { maxLength });
  } catch {
    return anyText; // a pattern fast-check cannot generate from
  }
  return fc.oneof({ weight: 3, arbitrary: matching }, { weight: 1, arbitrary: anyText });
}

/** A value for `schema`, mostly well-formed, sometimes hostile, at every depth. */
export function valueFor(openapi: Schema, raw: Schema, ids: IdPool, field: string, depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(openapi, raw);
  const good = wellFormed(openapi, schema, ids, field, depth);
  return fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: anyValue });
}

function wellFormed(openapi: Schema, schema: Schema, ids: IdPool, field: string, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueFor(openapi, s, ids, field, depth)));
  const types = ([] as string[]).concat(schema.type ?? ['string', 'object', 'array', 'number']);
  return fc.oneof(...types.map((type) => ofType(openapi, schema, type, ids, field, depth)));
}

function ofType(
  openapi: Schema,
  schema: Schema,
  type: string,
  ids: IdPool,
  field: string,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -10;
      const max = schema.maximum ?? 1_000;
      return type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
    }
    case 'string':
      if (schema.format === 'uuid') return fc.oneof(realId(ids, idKind(field)), fc.uuid());
      if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom(...(ids.email ?? ['a@b.co'])));
      if (schema.format === 'uri' || /url/i.test(field)) return fc.oneof(fc.webUrl(), nastyString);
      if (typeof schema.pattern === 'string') return patterned(schema);
      return schemaText(schema.minLength ?? 0, Math.min(schema.maxLength ?? 60, 200));
    case 'array':
      if (depth > 4) return fc.constant([]);
      if (/content/i.test(field)) return blocks;
      return fc.array(valueFor(openapi, schema.items ?? {}, ids, field, depth + 1), { maxLength: 4 });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(properties);
      if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 4 });
      const model = Object.fromEntries(
        names.map((name) => [name, valueFor(openapi, properties[name] ?? {}, ids, name, depth + 1)]),
      );
      const required = ((schema.required ?? []) as string[]).filter((name) => names.includes(name));
      // Required fields are sometimes left out too, and unknown ones sometimes added.
      return fc
        .tuple(
          fc.record(model, { requiredKeys: required }),
          fc.record(model, { requiredKeys: [] }),
          fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 2 }),
          fc.nat(9),
        )
        .map(([full, partial, extra, dice]) => (dice < 6 ? full : dice < 8 ? partial : { ...extra, ...full }));
    }
    default:
      return anyValue;
  }
}

/** A whole body as bytes on the wire: mostly JSON of the schema, sometimes something else entirely. */
export function bodyFor(openapi: Schema, route: FuzzRoute, ids: IdPool): fc.Arbitrary<string | Uint8Array | undefined> {
  if (route.method === 'GET' || route.method === 'HEAD') return fc.constant(undefined); // fetch sends none
  const schema = route.body ?? (route.method === 'DELETE' ? undefined : { type: 'object' });
  const json = schema ? valueFor(openapi, schema, ids, 'body').map((v) => JSON.stringify(v) ?? 'null') : undefined;
  const broken = fc.oneof(
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      '{"a":1}}',
      'nul',
      '"\\ud800"',
      '"\\u0000"',
      '{"__proto__":{"x":1}}',
      '1e999',
    ),
    // Nesting deeper than any JSON.stringify here could write, built as text.
    fc.constantFrom(100_000, 30_000).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.constant(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`),
    hugeString.map((s) => JSON.stringify({ title: s, name: s, content: s })),
    fc.uint8Array({ maxLength: 64 }),
    fc.constant(Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), // {"a":"\xff\xfe"}
  );
  const arms: Array<fc.WeightedArbitrary<string | Uint8Array | undefined>> = [
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: broken },
  ];
  if (json) arms.push({ weight: 6, arbitrary: json });
  return fc.oneof(...arms);
}

/** The query string: the route's parameters (well-formed or not) and sometimes raw junk. */
export function queryFor(openapi: Schema, route: FuzzRoute, ids: IdPool): fc.Arbitrary<string> {
  const params = route.query.map(({ name, schema }) =>
    fc.option(
      valueFor(openapi, schema, ids, name).map((value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return `${encodeText(name)}=${encodeText(text ?? '')}`;
      }),
      { freq: 4 },
    ),
  );
  const junk = fc.option(
    fc.constantFrom(
      '%',
      'a=%zz',
      'limit=1e999',
      'a[b][c]=1',
      'q=%00',
      '__proto__[x]=1',
      'x=%C0%80',
      '&&=&',
      'q=%ED%A0%80',
    ),
    { freq: 2 },
  );
  return fc.tuple(fc.tuple(...params), junk).map(([pairs, extra]) => {
    const parts = [...pairs, extra].filter((p): p is string => typeof p === 'string' && p.length > 0);
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  });
}

/**
 * A header value as fetch can send it (Latin-1, no NUL, CR or LF, no surrounding blanks): what
 * it cannot carry is percent-encoded, so the header still reaches the server, just odd.
 */
export function headerText(text: string): string {
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/gu, (char) => encodeText(char)).replace(/^[\t ]+|[\t ]+$/g, '');
}

/** The request headers the route reads (e.g. `last-event-id`), each sometimes left out. */
export function headersFor(openapi: Schema, route: FuzzRoute, ids: IdPool): fc.Arbitrary<Record<string, string>> {
  const values = route.headers.map(({ name, schema }) =>
    fc.option(
      valueFor(openapi, schema, ids, name).map((value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return [name, headerText(text ?? '')] as const;
      }),
      { freq: 3 },
    ),
  );
  return fc
    .tuple(...values)
    .map((pairs) => Object.fromEntries(pairs.filter((pair): pair is readonly [string, string] => pair !== null)));
}
