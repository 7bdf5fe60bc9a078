import { describe, expect, it } from 'vitest';
import { assertEventType, parseEnvelope } from './envelope.js';
import {
  dlqSubject,
  filterSubjectFor,
  isDlqSubject,
  matchesAnyType,
  matchesType,
  subjectFor,
  typeOfSubject,
  wantsSubject,
} from './subjects.js';

describe('event subjects', () => {
  it('puts the type under the prefix', () => {
    expect(subjectFor('wiki', 'document.updated')).toBe('wiki.document.updated');
    expect(typeOfSubject('wiki', 'wiki.document.updated')).toBe('document.updated');
    expect(typeOfSubject('wiki', 'other.document.updated')).toBeNull();
    expect(typeOfSubject('wiki', 'wikix.document.updated')).toBeNull();
  });

  it('names dead-letter subjects and recognises them', () => {
    expect(dlqSubject('wiki', 'search-index')).toBe('wiki.dlq.search-index');
    expect(isDlqSubject('wiki', 'wiki.dlq.search-index')).toBe(true);
    expect(isDlqSubject('wiki', 'wiki.document.created')).toBe(false);
  });

  it('matches types like NATS subjects', () => {
    expect(matchesType('member.added', 'member.added')).toBe(true);
    expect(matchesType('member.added', 'member.removed')).toBe(false);
    expect(matchesType('member.added', 'member.added.extra')).toBe(false);
    expect(matchesType('document.*', 'document.created')).toBe(true);
    expect(matchesType('document.*', 'document')).toBe(false);
    expect(matchesType('document.*', 'document.tree.moved')).toBe(false);
    expect(matchesType('document.*', 'documents.created')).toBe(false);
    expect(matchesType('*.deleted', 'workspace.deleted')).toBe(true);
    expect(matchesType('*.deleted', 'workspace.updated')).toBe(false);
    expect(matchesType('document.>', 'document.tree.moved')).toBe(true);
    expect(matchesType('document.>', 'document')).toBe(false);
    expect(matchesType('>', 'anything.at.all')).toBe(true);
    expect(matchesAnyType(['member.added', 'member.removed'], 'member.removed')).toBe(true);
    expect(matchesAnyType(['member.added', 'member.removed'], 'member.role_changed')).toBe(false);
  });

  it('uses one server-side filter for a single pattern and the shared tokens of several', () => {
    expect(filterSubjectFor('wiki', ['document.*'])).toBe('wiki.document.*');
    expect(filterSubjectFor('wiki', ['member.added'])).toBe('wiki.member.added');
    expect(filterSubjectFor('wiki', ['member.added', 'member.removed'])).toBe('wiki.member.>');
    expect(filterSubjectFor('wiki', ['comment.thread_created', 'comment.*'])).toBe('wiki.comment.>');
    expect(filterSubjectFor('wiki', ['member.added', 'workspace.deleted'])).toBe('wiki.>');
    expect(filterSubjectFor('wiki', ['*.created', '*.deleted'])).toBe('wiki.>');
    expect(() => filterSubjectFor('wiki', [])).toThrow();
    expect(() => filterSubjectFor('wiki', ['document.>.x'])).toThrow();
    expect(() => filterSubjectFor('wiki', ['Document created'])).toThrow();
  });

  it('never hands dead letters to a consumer, even one whose filter covers them', () => {
    expect(wantsSubject('wiki', ['>'], 'wiki.document.created')).toBe(true);
    expect(wantsSubject('wiki', ['>'], 'wiki.dlq.search-index')).toBe(false);
    expect(wantsSubject('wiki', ['*.*'], 'wiki.dlq.search-index')).toBe(false);
    expect(wantsSubject('wiki', ['member.added', 'member.removed'], 'wiki.member.removed')).toBe(true);
    expect(wantsSubject('wiki', ['member.added', 'member.removed'], 'wiki.member.role_changed')).toBe(false);
    expect(wantsSubject('wiki', ['member.added'], 'other.member.added')).toBe(false);
  });

  it('accepts only plain dotted event types and keeps dlq. reserved', () => {
    expect(() => assertEventType('member.role_changed')).not.toThrow();
    expect(() => assertEventType('document')).toThrow();
    expect(() => assertEventType('document.*')).toThrow();
    expect(() => assertEventType('Document.Created')).toThrow();
    expect(() => assertEventType('dlq.search')).toThrow();
  });

  it('parses envelopes and rejects malformed ones', () => {
    const id = '7d2c7f3e-8f0a-4a57-9d1b-2f4f4b0a9c11';
    const env = parseEnvelope(
      JSON.stringify({
        id,
        type: 'a.b',
        version: 1,
        occurredAt: '2026-11-23T10:00:00+01:00',
        actorId: null,
        workspaceId: 'w',
        data: { k: 1 },
      }),
    );
    expect(env).toMatchObject({
      id,
      type: 'a.b',
      workspaceId: 'w',
      actorId: null,
      data: { k: 1 },
      occurredAt: '2026-11-23T09:00:00.000Z',
    });
    expect(() =>
      parseEnvelope(JSON.stringify({ id, type: 'a.b', version: 1, occurredAt: 'yesterday', data: {} })),
    ).toThrow(/occurredAt/);
    expect(() => parseEnvelope(JSON.stringify({ id, type: 'a.b', version: 1, occurredAt: 17, data: {} }))).toThrow(
      /occurredAt/,
    );
    expect(() => parseEnvelope('not json')).toThrow();
    expect(() => parseEnvelope(JSON.stringify({ id: 'nope', type: 'a.b', version: 1, data: {} }))).toThrow(/uuid/);
    expect(() => parseEnvelope(JSON.stringify({ id, type: 'a.b', version: 2, data: {} }))).toThrow(/version/);
  });
});
