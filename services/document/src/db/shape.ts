import { sql, z } from '@wiki/db';

type Fragment = ReturnType<typeof sql.fragment>;

/** A field of a shape: its type and the SQL expression that reads it. */
export type Column = readonly [z.ZodTypeAny, Fragment];

/**
 * A row shape, defined once: every field of the typed object with its type and the SQL expression
 * that reads it (over the query's `d`, the document, and the shape's `joins`). The select list
 * (`expression AS "field"`) and the row type both come from this one definition, so every query
 * that answers the shape, through slonik or as a prepared statement, reads the same columns under
 * the same names, and its row is the typed object as it stands: no mapping code in between.
 *
 * Through slonik (`sql.type(shape.row)`) rows are checked against the zod object and timestamps come
 * out as ISO text by the pool's parser. A prepared statement on pg reads `shape.text` unchecked, so a
 * shape it reads gives timestamps as `iso(...)` and counts as int4 (pg's default parsers then give
 * the row's types; the tests check such rows against `shape.row`).
 */
export interface Shape<C extends Record<string, Column>> {
  row: z.ZodObject<{ [K in keyof C]: C[K][0] }>;
  /** The select list, for slonik queries. */
  columns: ReturnType<typeof sql.join>;
  /** What the columns read besides `d` (empty when nothing), for slonik queries. */
  joins: Fragment;
  /** The same select list and joins as SQL text, for prepared statements. */
  text: { columns: string; joins: string };
}

export function shape<C extends Record<string, Column>>(fields: C, joins: Fragment = sql.fragment``): Shape<C> {
  const selected = Object.entries(fields).map(([name, [, expression]]) => {
    if (expression.values.length > 0) throw new Error(`shape column ${name} takes a parameter`);
    return sql.fragment`${expression} AS ${sql.identifier([name])}`;
  });
  if (joins.values.length > 0) throw new Error('shape joins take a parameter');
  const types = Object.fromEntries(Object.entries(fields).map(([name, [type]]) => [name, type]));
  return {
    row: z.object(types) as Shape<C>['row'],
    columns: sql.join(selected, sql.fragment`, `),
    joins,
    text: { columns: selected.map((s) => s.sql).join(', '), joins: joins.sql },
  };
}

/** A timestamp as ISO 8601 text in UTC with milliseconds: the text slonik's pool gives for a timestamptz. */
export const iso = (timestamp: Fragment): Fragment =>
  sql.fragment`to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
