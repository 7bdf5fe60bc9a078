import type { Static, TSchema, TUnsafe } from 'typebox';
import * as Type from './type.js';

/**
 * JSON-schema building blocks shared by every service's routes, built with TypeBox's types and
 * `Type` from ./type.ts (TypeBox's builders, without loading TypeBox at run time): at run time
 * each is a plain JSON Schema object (Fastify compiles it once: ajv for input, fast-json-stringify
 * for output, @fastify/swagger for the description), and its TypeScript type carries `Static<S>`,
 * the type of the values it accepts. A route registered on `app.withTypeProvider<TypeBoxTypeProvider>()`
 * gets its `request.params`, `query`, `body` and reply types from its schemas.
 *
 * The builders write exactly the JSON the routes always had (`type: [T, 'null']` rather than
 * `anyOf`, `required` listed next to the properties), so validation messages and the OpenAPI
 * description do not depend on TypeBox's own spelling.
 */
export type { Static, TSchema };

/** The properties of an object schema. */
export type Properties = Record<string, TSchema>;

type Evaluate<T> = { [K in keyof T]: T[K] } & {};

/** A property is present after validation when it is required or has a default (ajv's useDefaults). */
type Present<P extends Properties, R extends keyof P> =
  | R
  | { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];

/** `Static` of an object schema: the required properties, and the others optional. */
export type ObjectStatic<P extends Properties, R extends keyof P> = Evaluate<
  { [K in Present<P, R>]: Static<P[K]> } & { [K in Exclude<keyof P, Present<P, R>>]?: Static<P[K]> }
>;

function typeName(schema: TSchema): string {
  const { type } = schema as { type?: unknown };
  if (typeof type !== 'string') throw new Error(`nullable() needs a schema with one type, got ${JSON.stringify(type)}`);
  return type;
}

export const uuid = Type.String({ format: 'uuid' });
export const timestamp = Type.String({ format: 'date-time' });

/** The schema, or null: `{ ...schema, type: [its type, 'null'] }`. */
export function nullable<S extends TSchema>(schema: S): TUnsafe<Static<S> | null> {
  return Type.Unsafe<Static<S> | null>({ ...schema, type: [typeName(schema), 'null'] });
}

export const nullableUuid = nullable(uuid);
export const nullableTimestamp = nullable(timestamp);
export const nullableString = nullable(Type.String());

/** A string that must hold at least one non-space character. */
export const notBlank = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S' });

/** One of the given strings: `{ type: 'string', enum }` (its type is their union). */
export function stringEnum<const V extends readonly string[]>(values: V): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values] });
}

/** The schema with a default, which ajv fills in when the value is absent (so the value is always there). */
export function withDefault<S extends TSchema>(
  schema: S,
  value: Static<S>,
): TUnsafe<Static<S>> & { default: Static<S> } {
  return Type.Unsafe<Static<S>>({ ...schema, default: value }) as TUnsafe<Static<S>> & { default: Static<S> };
}

/** An object with these properties (`required` lists the ones that must be there); no others are kept. */
export function object<const P extends Properties, const R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): TUnsafe<ObjectStatic<P, R>> {
  return Type.Unsafe<ObjectStatic<P, R>>({ type: 'object', properties, required, additionalProperties: false });
}

/** An object with these properties that says nothing about others (response shapes that never had the rule). */
export function openObject<const P extends Properties, const R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): TUnsafe<ObjectStatic<P, R>> {
  return Type.Unsafe<ObjectStatic<P, R>>({ type: 'object', properties, required });
}

/** `ApiResponse<T>`: `{ success: true, data }`. */
export function envelope<D extends TSchema>(data: D): TUnsafe<{ success: boolean; data: Static<D> }> {
  return openObject({ success: Type.Boolean(), data }, ['success', 'data']);
}

export const listOf = <I extends TSchema>(item: I) => envelope(Type.Array(item));

/** `ApiResponse<Void>`: `{ success: true }`. */
export const voidEnvelope = openObject({ success: Type.Boolean() }, ['success']);

/** Path parameters that are all UUIDs, all required. */
export const idParams = <const N extends string>(...names: N[]) =>
  object(Object.fromEntries(names.map((n) => [n, uuid])) as { [K in N]: typeof uuid }, names);

export function success<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export const SUCCESS_VOID = Object.freeze({ success: true as const });

/** `page` (0-based) and `size` (1..100, ARCHITECTURE 5.6) of a paged list; anything else is a 400. */
export const PAGE_QUERY_PROPERTIES = {
  page: withDefault(Type.Integer({ minimum: 0 }), 0),
  size: withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 20),
};
export const pageQuery = object(PAGE_QUERY_PROPERTIES);

/** `ApiResponse<Page<T>>` (spec 2): `content`, `totalElements`, `totalPages`, `number`, `size`. */
export const pageOf = <I extends TSchema>(item: I) =>
  envelope(
    openObject(
      {
        content: Type.Array(item),
        totalElements: Type.Integer(),
        totalPages: Type.Integer(),
        number: Type.Integer(),
        size: Type.Integer(),
      },
      ['content', 'totalElements', 'totalPages', 'number', 'size'],
    ),
  );

/** Page<T> (spec 2): `number` is the 0-based page asked for. */
export function presentPage<T>(content: T[], total: number, page: number, size: number) {
  return { content, totalElements: total, totalPages: Math.ceil(total / size), number: page, size };
}
