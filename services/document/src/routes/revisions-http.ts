import { envelope, invalidField, success } from '@wiki/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EditSource } from '../domain/edit-source.js';
import { presentDocument } from '../presenters/documents.js';
import { documentResponse } from './schemas.js';

/** How a document's revision travels over HTTP (ARCHITECTURE 5.16): ETag out, If-Match in. */

/** The 200 schema of a route answering with answerDocument: the DocumentResponse and its ETag header (OpenAPI). */
export const taggedDocument = Object.assign(envelope(documentResponse), {
  headers: { etag: { type: 'string', description: 'The revision, quoted ("3"): what If-Match takes back' } },
});

/** A DocumentResponse answer (GET, PUT, append, restore) with `ETag: "<revision>"`. */
export async function answerDocument(
  reply: FastifyReply,
  doc: Parameters<typeof presentDocument>[0],
  users: Parameters<typeof presentDocument>[1],
  requestId?: string,
) {
  reply.header('etag', `"${doc.revision}"`);
  return success(await presentDocument(doc, users, requestId));
}

/** One revision as If-Match may name it: "7", W/"7" or a bare 7. */
const IF_MATCH = /^\s*(?:(?:W\/)?"(\d{1,9})"|(\d{1,9}))\s*$/;

/**
 * The revision a write is based on, from If-Match and the body's lastRevision (either, or both when
 * they agree); undefined when neither is given (the last write wins, as the spec says) or If-Match
 * is `*`. A malformed If-Match, or one that contradicts lastRevision, is a 400.
 */
export function expectedRevisionOf(request: FastifyRequest, lastRevision?: number): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return lastRevision;
  const match = IF_MATCH.exec(header);
  if (!match) throw invalidField('If-Match', 'must be one revision as the ETag gives it, e.g. "3"');
  const fromHeader = Number(match[1] ?? match[2]);
  if (lastRevision !== undefined && lastRevision !== fromHeader)
    throw invalidField('lastRevision', 'names another revision than If-Match');
  return fromHeader;
}

/**
 * Where a public-route write comes from: MCP when the caller's identity is of kind `mcp`, which
 * only the gateway mints (signed, for a request that presented an MCP key on /api/v1/mcp, and the
 * MCP service forwards it for the user's tool calls); a person's REST edit otherwise.
 */
export const sourceOf = (request: FastifyRequest): EditSource => (request.identity?.kind === 'mcp' ? 'MCP' : 'EDIT');
