/**
 * The routes the fuzzer drives, read from the gateway's merged OpenAPI document (what the running
 * services register), so a new route is fuzzed without anyone editing a list.
 */

export type Schema = Record<string, any>;

export type Credential = 'bearer' | 'internal' | 'mcp' | 'none';

export interface FuzzRoute {
  method: string;
  /** OpenAPI template, e.g. `/api/v1/documents/{id}`. */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema }>;
  /** Request headers the route reads (e.g. the event stream's `last-event-id`). */
  headers: Array<{ name: string; schema: Schema }>;
  /** The JSON body schema, when the route takes one. */
  body?: Schema;
  /** A body that is not JSON (uploads, binary state): the fuzzer sends JSON there anyway. */
  takesOtherBody: boolean;
  credential: Credential;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function credentialOf(security: Schema[] | undefined): Credential {
  if (security === undefined) return 'bearer'; // the document's default
  if (security.length === 0) return 'none';
  if (security.some((s) => 'internalApiKey' in s)) return 'internal';
  return security.some((s) => 'mcpApiKey' in s) ? 'mcp' : 'bearer';
}

export function routesOf(openapi: Schema): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [path, item] of Object.entries(openapi.paths as Record<string, Schema>)) {
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const params = (op.parameters ?? []) as Schema[];
      const content = (op.requestBody?.content ?? {}) as Record<string, Schema>;
      const json = content['application/json'];
      routes.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name as string),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name as string, schema: p.schema ?? {} })),
        headers: params
          .filter((p) => p.in === 'header')
          .map((p) => ({ name: p.name as string, schema: p.schema ?? {} })),
        body: json ? (json.schema ?? {}) : undefined,
        takesOtherBody: !json && Object.keys(content).length > 0,
        credential: credentialOf(op.security ?? openapi.security),
      });
    }
  }
  return routes;
}

/** Resolves a local `$ref` (`#/components/schemas/x`) against the document. */
export function deref(openapi: Schema, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<Schema>((node, key) => node?.[key], openapi) ?? {};
  }
  return current ?? {};
}
