import { signUnsubscribeToken } from '@wiki/auth';
import { type EventRecorder, eventually, recordEvents, type SignedInUser, type Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { type Harness, MODES, type Mode, startHarness } from './helpers.js';

/**
 * E-mail preferences (ARCHITECTURE 5.18, issue 31): `emailNotifications` in PUT
 * /users/me/preferences, and the one-click unsubscribe link of the e-mails (RFC 8058), which works
 * without signing in.
 */

const DEFAULTS = {
  COMMENT_MENTION: 'instant',
  COMMENT_REPLY: 'digest',
  THREAD_RESOLVED: 'digest',
  WORKSPACE_INVITATION: 'instant',
  INVITATION_ACCEPTED: 'digest',
  MEMBER_ROLE_CHANGED: 'digest',
  MEMBER_REMOVED: 'digest',
  DOCUMENT_UPDATED: 'digest',
  WEBHOOK_DISABLED: 'digest',
  JOB_FINISHED: 'off',
};
const ALL_OFF = Object.fromEntries(Object.keys(DEFAULTS).map((type) => [type, 'off']));

describe.each(MODES)('emailNotifications (%s)', (mode: Mode) => {
  let t: Harness;
  beforeAll(async () => {
    t = await startHarness(mode);
  });
  afterAll(() => t?.stop());

  const me = async (user: SignedInUser) => (await t.call('GET', '/api/v1/users/me', { as: user })).body.data;
  const save = (user: SignedInUser, body: unknown) => t.call('PUT', '/api/v1/users/me/preferences', { as: user, body });

  it('answers every type, the defaults filled in, and a partial map changes only the types it names', async () => {
    const ida = await t.signIn('ida@example.com', 'Ida');
    expect((await me(ida)).preference.emailNotifications).toEqual(DEFAULTS);

    const first = await save(ida, { emailNotifications: { COMMENT_REPLY: 'off', DOCUMENT_UPDATED: 'instant' } });
    expect(first.status).toBe(200);
    expect(first.body.data.preference.emailNotifications).toEqual({
      ...DEFAULTS,
      COMMENT_REPLY: 'off',
      DOCUMENT_UPDATED: 'instant',
    });
    const second = await save(ida, { theme: 'dark', emailNotifications: { COMMENT_MENTION: 'digest' } });
    expect(second.body.data.preference).toMatchObject({
      theme: 'dark',
      emailNotifications: { ...DEFAULTS, COMMENT_REPLY: 'off', DOCUMENT_UPDATED: 'instant', COMMENT_MENTION: 'digest' },
    });
    // Other fields leave the map alone; GET /users/me answers what the save answered.
    const third = await save(ida, { locale: 'de' });
    expect(third.body.data.preference.emailNotifications).toEqual(second.body.data.preference.emailNotifications);
    expect(await me(ida)).toEqual(third.body.data);
  });

  it.each([
    ['an unknown type', { emailNotifications: { COMMENT_SHOUT: 'off' } }],
    ['an unknown mode', { emailNotifications: { COMMENT_REPLY: 'weekly' } }],
    ['a lower-case type', { emailNotifications: { comment_reply: 'off' } }],
    ['a string', { emailNotifications: 'off' }],
    ['an array', { emailNotifications: ['COMMENT_REPLY'] }],
    ['null', { emailNotifications: null }],
    ['a valid field beside a bad map', { theme: 'light', emailNotifications: { COMMENT_REPLY: 'never' } }],
  ])('refuses %s (400) and changes nothing', async (_what, body) => {
    const user = await t.signIn(`refused-${crypto.randomUUID()}@example.com`, 'Refused');
    await save(user, { theme: 'dark', emailNotifications: { THREAD_RESOLVED: 'off' } });
    const before = await me(user);
    const res = await save(user, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details[0].field).toMatch(/^emailNotifications/);
    expect(await me(user)).toEqual(before);
  });

  it('describes the field with its types and modes in OpenAPI', async () => {
    const doc = (await t.direct('GET', '/openapi.json', { identity: null })).body;
    const put = doc.paths['/api/v1/users/me/preferences'].put;
    const field = put.requestBody.content['application/json'].schema.properties.emailNotifications;
    expect(Object.keys(field.properties)).toEqual(Object.keys(DEFAULTS));
    expect(field.properties.COMMENT_REPLY.enum).toEqual(['off', 'instant', 'digest']);
    const answer = put.responses['200'].content['application/json'].schema.properties.data.properties.preference;
    expect(answer.required).toContain('emailNotifications');
  });
});

describe('through the gateway, events read from NATS', () => {
  let stack: Stack;
  let recorder: EventRecorder;
  beforeAll(async () => {
    stack = await startPlatform(['workspace']);
    recorder = await recordEvents(stack.config);
  });
  afterAll(async () => {
    await recorder?.close();
    await stack?.stop();
  });

  const changesOf = (user: SignedInUser) =>
    recorder.ofType('user.preferences_changed').filter((e) => e.data.userId === user.id);
  const save = (user: SignedInUser, body: unknown) =>
    stack.request('PUT', '/api/v1/users/me/preferences', { token: user.token, body });
  const preferenceOf = async (user: SignedInUser) =>
    (await stack.request('GET', '/api/v1/users/me', { token: user.token })).body.data.preference;
  /**
   * Expects `count` events of the user so far: two changes that do emit (off and back on) are
   * waited for, and every event before them has arrived by then (one outbox, sent in order).
   */
  async function settle(user: SignedInUser, count: number) {
    const { notificationsEnabled } = await preferenceOf(user);
    await save(user, { notificationsEnabled: !notificationsEnabled });
    await save(user, { notificationsEnabled });
    await eventually(() =>
      expect(
        changesOf(user)
          .slice(-2)
          .map((e) => e.data.notificationsEnabled),
      ).toEqual([!notificationsEnabled, notificationsEnabled]),
    );
    expect(changesOf(user)).toHaveLength(count + 2);
  }

  const link = (token: string) => `${stack.gatewayUrl}/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}`;
  const tokenOf = (user: SignedInUser, type: string, secret = stack.config.internalTokenSecret) =>
    signUnsubscribeToken(secret, { userId: user.id, type });
  const oneClick = (token: string, headers: Record<string, string> = {}) =>
    fetch(link(token), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: 'List-Unsubscribe=One-Click',
    });

  it('emits user.preferences_changed with all three fields when one of them changes, and only then', async () => {
    const eve = await stack.signIn('eve@example.com', 'Eve');
    await save(eve, { emailNotifications: { COMMENT_REPLY: 'off' } });
    await eventually(() => expect(changesOf(eve)).toHaveLength(1));
    expect(changesOf(eve)[0]).toMatchObject({
      actorId: eve.id,
      workspaceId: null,
      data: {
        userId: eve.id,
        notificationsEnabled: true,
        locale: 'en',
        emailNotifications: { ...DEFAULTS, COMMENT_REPLY: 'off' },
      },
    });
    // Nothing anyone acts on changed: the same map again, a default chosen explicitly, the theme.
    await save(eve, { emailNotifications: { COMMENT_REPLY: 'off', COMMENT_MENTION: 'instant' } });
    await save(eve, { theme: 'dark', lastWorkspaceId: null });
    await save(eve, { locale: 'en' });
    await settle(eve, 1);

    await save(eve, { locale: 'fr' });
    await eventually(() => expect(changesOf(eve)).toHaveLength(4));
    expect(changesOf(eve)[3].data).toEqual({
      userId: eve.id,
      notificationsEnabled: true,
      locale: 'fr',
      emailNotifications: { ...DEFAULTS, COMMENT_REPLY: 'off' },
    });
    expect(recorder.contractViolations()).toEqual([]);
  });

  it('GET shows what the link turns off and a button that posts, and changes nothing', async () => {
    const gus = await stack.signIn('gus@example.com', 'Gus');
    const token = tokenOf(gus, 'COMMENT_MENTION');
    const res = await fetch(link(token), { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('script-src');
    const html = await res.text();
    expect(html).toContain('mentions of you');
    expect(html).toContain('gus@example.com');
    expect(html).toContain(
      `<form method="post" action="/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}">`,
    );
    expect(html).toContain('<button type="submit">Unsubscribe</button>');
    expect(html).not.toMatch(/<script/i);

    expect((await fetch(link(token), { method: 'HEAD' })).status).toBe(200);
    expect((await preferenceOf(gus)).emailNotifications).toEqual(DEFAULTS);
    await settle(gus, 0);
  });

  it('POST One-Click turns the type off without signing in, and a repeat is the same answer with nothing emitted', async () => {
    const hal = await stack.signIn('hal@example.com', 'Hal');
    const token = tokenOf(hal, 'COMMENT_MENTION');
    const res = await oneClick(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('hal@example.com will no longer get e-mails about mentions of you.');
    expect(html).toContain('href="/settings"');
    expect((await preferenceOf(hal)).emailNotifications).toEqual({ ...DEFAULTS, COMMENT_MENTION: 'off' });
    await eventually(() => expect(changesOf(hal)).toHaveLength(1));
    expect(changesOf(hal)[0].data.emailNotifications.COMMENT_MENTION).toBe('off');

    const again = await oneClick(token);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(html);
    await settle(hal, 1);
    expect((await preferenceOf(hal)).emailNotifications).toEqual({ ...DEFAULTS, COMMENT_MENTION: 'off' });
  });

  it('takes the page’s own form post (an empty body), and `*` turns every type off', async () => {
    const ivy = await stack.signIn('ivy@example.com', 'Ivy');
    const fromPage = await fetch(link(tokenOf(ivy, 'DOCUMENT_UPDATED')), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: '',
    });
    expect(fromPage.status).toBe(200);
    expect((await preferenceOf(ivy)).emailNotifications).toEqual({ ...DEFAULTS, DOCUMENT_UPDATED: 'off' });
    // Neither a bare POST (no form at all) nor another value of RFC 8058's field is the one-click
    // request: refused, nothing changes.
    expect((await fetch(link(tokenOf(ivy, 'THREAD_RESOLVED')), { method: 'POST' })).status).toBe(400);
    const other = await fetch(link(tokenOf(ivy, 'COMMENT_REPLY')), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=Maybe',
    });
    expect(other.status).toBe(400);
    expect((await preferenceOf(ivy)).emailNotifications).toEqual({ ...DEFAULTS, DOCUMENT_UPDATED: 'off' });

    const all = await oneClick(tokenOf(ivy, '*'));
    expect(all.status).toBe(200);
    expect(await all.text()).toContain('will no longer get all e-mails from the wiki');
    expect((await preferenceOf(ivy)).emailNotifications).toEqual(ALL_OFF);
    await eventually(() => expect(changesOf(ivy).at(-1)?.data.emailNotifications).toEqual(ALL_OFF));
    // The person may turn a type back on in their settings; an old link still works afterwards.
    await save(ivy, { emailNotifications: { COMMENT_MENTION: 'instant' } });
    expect((await oneClick(tokenOf(ivy, 'COMMENT_MENTION'))).status).toBe(200);
    expect((await preferenceOf(ivy)).emailNotifications).toEqual(ALL_OFF);
  });

  it('refuses forged, garbled and foreign tokens with 400, changing nothing (an HTML page for browsers)', async () => {
    const jo = await stack.signIn('jo@example.com', 'Jo');
    const good = tokenOf(jo, 'COMMENT_REPLY');
    const bad = [
      tokenOf(jo, 'COMMENT_REPLY', 'another-secret-of-someone-else-32-chars'),
      `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`,
      good.replace(jo.id, crypto.randomUUID()),
      tokenOf(jo, 'NOT_A_TYPE'),
      signUnsubscribeToken(stack.config.internalTokenSecret, { userId: crypto.randomUUID(), type: '*' }),
      'u1.garbage',
      '',
      'x'.repeat(600),
    ];
    for (const token of bad) {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(link(token), {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: method === 'POST' ? 'List-Unsubscribe=One-Click' : undefined,
        });
        expect(res.status, `${method} ${token}`).toBe(400);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const body = (await res.json()) as { error: { details: { field: string }[] } };
        expect(body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
        expect(body.error.details[0].field).toBe('token');
      }
    }
    const browser = await oneClick(bad[0] as string, { accept: 'text/html,application/xhtml+xml' });
    expect(browser.status).toBe(400);
    expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(browser.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await browser.text()).toContain('This unsubscribe link is not valid');
    const missing = await fetch(`${stack.gatewayUrl}/api/v1/email/unsubscribe`, { method: 'POST' });
    expect(missing.status).toBe(400);

    expect((await preferenceOf(jo)).emailNotifications).toEqual(DEFAULTS);
    await settle(jo, 0);
  });
});
