import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { verifyUnsubscribeToken } from '@wiki/auth';
import { errorResponses, invalidField, object, stringEnum, Type } from '@wiki/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../commands/context.js';
import { findUser, unsubscribe } from '../commands/users.js';
import { describeUnsubscribe, isUnsubscribeTarget, type UnsubscribeTarget } from '../domain/email-preferences.js';
import {
  confirmUnsubscribePage,
  invalidLinkPage,
  UNSUBSCRIBE_HEADERS,
  UNSUBSCRIBE_PATH,
  unsubscribedPage,
} from '../presenters/unsubscribe-page.js';

const tags = ['E-mail'];

const tokenQuery = object(
  { token: Type.String({ maxLength: 512, description: 'The signed token of the e-mail’s unsubscribe link' }) },
  ['token'],
);

/** RFC 8058's body, or the page's empty form. */
const oneClickBody = object({ 'List-Unsubscribe': stringEnum(['One-Click'] as const) });

const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});

/** Only a form this short is read: the one field RFC 8058 sends. */
const FORM_BODY_LIMIT = 1024;

/**
 * One-click unsubscribe (RFC 8058, ARCHITECTURE 5.18), reached without signing in: the signed
 * token says who and which type. GET only shows what the button would turn off, because mail
 * scanners follow links; POST turns it off.
 */
export function registerEmailRoutes(server: FastifyInstance, ctx: Context): void {
  server.register(async (scope) => {
    // Form bodies are parsed for these routes alone; everywhere else stays JSON only.
    await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    // On every answer of these routes, refusals by the schema included.
    scope.addHook('onRequest', async (_request, reply) => {
      reply.headers(UNSUBSCRIBE_HEADERS);
    });
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    const subjectOf = async (token: string) => {
      const claim = verifyUnsubscribeToken(ctx.config.internalTokenSecret, token);
      if (!claim || !isUnsubscribeTarget(claim.type)) return null;
      const user = await findUser(ctx, claim.userId);
      return user ? { user, target: claim.type as UnsubscribeTarget } : null;
    };

    app.get(
      UNSUBSCRIBE_PATH,
      {
        schema: {
          tags,
          summary: 'The page of an e-mail’s unsubscribe link: what it turns off, and the button (changes nothing)',
          security: [],
          querystring: tokenQuery,
          response: { 200: htmlPage('The confirmation page'), ...errorResponses(400) },
        },
      },
      async (request, reply) => {
        const subject = await subjectOf(request.query.token);
        if (!subject) return refuse(request, reply);
        const page = confirmUnsubscribePage(
          describeUnsubscribe(subject.target),
          subject.user.email,
          request.query.token,
        );
        return reply.type('text/html; charset=utf-8').send(page);
      },
    );

    app.post(
      UNSUBSCRIBE_PATH,
      {
        schema: {
          tags,
          summary: 'One-click unsubscribe (RFC 8058): the link’s type, or every type, is no longer e-mailed',
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          querystring: tokenQuery,
          body: oneClickBody,
          response: { 200: htmlPage('Done (also when it was already off)'), ...errorResponses(400) },
        },
      },
      async (request, reply) => {
        const subject = await subjectOf(request.query.token);
        if (!subject) return refuse(request, reply);
        await unsubscribe(ctx, subject.user.id, subject.target);
        return reply
          .type('text/html; charset=utf-8')
          .send(unsubscribedPage(describeUnsubscribe(subject.target), subject.user.email));
      },
    );
  });
}

/** A browser gets a page it can show; anything else the error envelope (docs/DECISIONS.md). */
function refuse(request: FastifyRequest, reply: FastifyReply) {
  if (/\btext\/html\b/i.test(request.headers.accept ?? ''))
    return reply.code(400).type('text/html; charset=utf-8').send(invalidLinkPage());
  throw invalidField('token', 'is not a valid unsubscribe link');
}
