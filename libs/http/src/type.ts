import type {
  TArray,
  TArrayOptions,
  TBoolean,
  TInteger,
  TNumberOptions,
  TRef,
  TSchema,
  TSchemaOptions,
  TString,
  TStringOptions,
  TUnion,
  TUnknown,
  TUnsafe,
} from 'typebox';

/**
 * The few TypeBox builders the routes call, without loading TypeBox at run time (importing it costs
 * every process ~11 MB of memory, for objects Fastify only reads once). Each returns the object
 * TypeBox 1.x returns: the same JSON Schema keys in the same order (so ajv's messages and the
 * OpenAPI description do not change), with TypeBox's hidden, non-enumerable `~kind` (`~unsafe` for
 * `Unsafe`) marker, and TypeBox's static types (`import type` only), so `Static<S>` and the type
 * provider see exactly what they saw. Use it as `Type.String()`; the types are `Type.TString` etc.
 */
export type {
  TArray,
  TBoolean,
  TInteger,
  TRef,
  TSchema,
  TString,
  TUnion,
  TUnknown,
  TUnsafe,
} from 'typebox';

function hidden<T>(schema: object, key: '~kind' | '~unsafe', value: unknown): T {
  Object.defineProperty(schema, key, { configurable: true, writable: true, enumerable: false, value });
  return schema as T;
}

/** `{ type: 'string', ...options }` */
function _String(options?: TStringOptions): TString {
  return hidden({ type: 'string', ...options }, '~kind', 'String');
}

/** `{ type: 'boolean', ...options }` */
function _Boolean(options?: TSchemaOptions): TBoolean {
  return hidden({ type: 'boolean', ...options }, '~kind', 'Boolean');
}

/** `{ type: 'integer', ...options }` */
export function Integer(options?: TNumberOptions): TInteger {
  return hidden({ type: 'integer', ...options }, '~kind', 'Integer');
}

/** `{ type: 'array', items, ...options }` */
function _Array<Items extends TSchema>(items: Items, options?: TArrayOptions): TArray<Items> {
  return hidden({ type: 'array', items, ...options }, '~kind', 'Array');
}

/** `{ anyOf, ...options }` */
export function Union<Types extends TSchema[]>(anyOf: [...Types], options?: TSchemaOptions): TUnion<Types> {
  return hidden({ anyOf, ...options }, '~kind', 'Union');
}

/** `{ $ref, ...options }` */
export function Ref<Ref extends string>(ref: Ref, options?: TSchemaOptions): TRef<Ref> {
  return hidden({ $ref: ref, ...options }, '~kind', 'Ref');
}

/** `{ ...options }`: any value. */
export function Unknown(options?: TSchemaOptions): TUnknown {
  return hidden({ ...options }, '~kind', 'Unknown');
}

/** A copy of the schema (its own keys, hidden ones too, in order) typed as accepting `T`. */
export function Unsafe<T>(schema: TSchema): TUnsafe<T> {
  const copy = {};
  for (const key of Reflect.ownKeys(schema)) {
    if (key === '~unsafe' || key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(schema, key) as PropertyDescriptor);
  }
  return hidden(copy, '~unsafe', null);
}

export { _Array as Array, _Boolean as Boolean, _String as String };
