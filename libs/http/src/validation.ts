import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const common = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false } as const;

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: under NodeNext its default export arrives as the module object.
  (formats as unknown as { default: (a: Ajv) => Ajv }).default(ajv);
  return ajv;
}

/**
 * JSON bodies are validated as sent: `"5"` is not the integer 5 and `123` is not a string, so a
 * wrongly typed value is a 400, never a silent conversion. Query strings, path parameters and
 * headers arrive as text and are coerced to their schema types. Unknown body fields are dropped
 * (a `role` a route does not take is ignored, ARCHITECTURE 5.13).
 */
export function useRequestValidation(app: FastifyInstance): void {
  const strict = withFormats(new Ajv({ ...common, coerceTypes: false }));
  const coercing = withFormats(new Ajv({ ...common, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
