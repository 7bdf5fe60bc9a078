/**
 * JSON-schema building blocks shared by every service's routes. Schemas are plain objects so
 * Fastify compiles them once (ajv for input, fast-json-stringify for output).
 */
export type JsonSchema = Record<string, unknown>;

export const uuid = { type: 'string', format: 'uuid' } as const;
export const nullableUuid = { type: ['string', 'null'], format: 'uuid' } as const;
export const timestamp = { type: 'string', format: 'date-time' } as const;
export const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
export const nullableString = { type: ['string', 'null'] } as const;

/** A string that must hold at least one non-space character. */
export const notBlank = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' }) as const;

export function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** `ApiResponse<T>`: `{ success: true, data }`. */
export function envelope(data: JsonSchema): JsonSchema {
  return { type: 'object', properties: { success: { type: 'boolean' }, data }, required: ['success', 'data'] };
}

export const listOf = (item: JsonSchema): JsonSchema => envelope({ type: 'array', items: item });

/** `ApiResponse<Void>`: `{ success: true }`. */
export const voidEnvelope: JsonSchema = {
  type: 'object',
  properties: { success: { type: 'boolean' } },
  required: ['success'],
};

export const errorEnvelope: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        details: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
  },
};

export const idParams = (...names: string[]): JsonSchema =>
  object(Object.fromEntries(names.map((n) => [n, uuid])), names);

export function success<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export const SUCCESS_VOID = Object.freeze({ success: true as const });
