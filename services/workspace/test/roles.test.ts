import { addMember, createWorkspace, type SignedInUser, signInNew } from '@wiki/testing';
import { type Harness, MODES, type Mode, startHarness } from './helpers.js';

type Who = 'OWNER' | 'ADMIN' | 'EDITOR' | 'COMMENTER' | 'VIEWER' | 'NON_MEMBER';
const EVERYONE: Who[] = ['OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER', 'NON_MEMBER'];

/**
 * The role table of ARCHITECTURE 3 for every workspace-scoped endpoint: the status each kind of
 * caller gets. Non-members get 404 (existence is not leaked), members below the role 403.
 */
const MATRIX: Array<{ action: string; expect: Partial<Record<Who, number>> }> = [
  {
    action: 'get workspace',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 200, COMMENTER: 200, VIEWER: 200, NON_MEMBER: 404 },
  },
  {
    action: 'update workspace',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  { action: 'delete workspace', expect: { ADMIN: 403, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 } },
  { action: 'transfer ownership', expect: { ADMIN: 403, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 } },
  {
    action: 'list members',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 200, COMMENTER: 200, VIEWER: 200, NON_MEMBER: 404 },
  },
  {
    action: 'search members',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 200, COMMENTER: 200, VIEWER: 200, NON_MEMBER: 404 },
  },
  { action: 'invite', expect: { OWNER: 201, ADMIN: 201, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 } },
  {
    action: 'list invitations',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  {
    action: 'cancel invitation',
    expect: { OWNER: 204, ADMIN: 204, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  {
    action: 'resend invitation',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  {
    action: 'change role',
    expect: { OWNER: 200, ADMIN: 200, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  {
    action: 'remove member',
    expect: { OWNER: 204, ADMIN: 204, EDITOR: 403, COMMENTER: 403, VIEWER: 403, NON_MEMBER: 404 },
  },
  { action: 'leave', expect: { OWNER: 409, NON_MEMBER: 404 } },
];

describe.each(MODES)('role table (%s)', (mode: Mode) => {
  let t: Harness;
  let ws: string;
  const people = {} as Record<Who, SignedInUser>;
  let counter = 0;

  async function invitation(role = 'VIEWER') {
    const res = await t.call('POST', `/api/v1/workspaces/${ws}/members/invite`, {
      as: people.OWNER,
      body: { email: `fresh${++counter}@example.com`, role },
    });
    expect(res.status).toBe(201);
    return res.body.data as { invitationId: string; inviteLink: string; email: string };
  }

  /** The membership id of a new VIEWER. */
  async function freshMember(): Promise<string> {
    return (await addMember(t, ws, people.OWNER, await signInNew(t), 'VIEWER')).id;
  }

  const attempts: Record<string, (as: SignedInUser) => Promise<number>> = {
    'get workspace': async (as) => (await t.call('GET', `/api/v1/workspaces/${ws}`, { as })).status,
    'update workspace': async (as) =>
      (await t.call('PUT', `/api/v1/workspaces/${ws}`, { as, body: { description: `by ${as.email}` } })).status,
    'delete workspace': async (as) => (await t.call('DELETE', `/api/v1/workspaces/${ws}`, { as })).status,
    'transfer ownership': async (as) =>
      (await t.call('POST', `/api/v1/workspaces/${ws}/transfer-ownership`, { as, body: { userId: people.VIEWER.id } }))
        .status,
    'list members': async (as) => (await t.call('GET', `/api/v1/workspaces/${ws}/members`, { as })).status,
    'search members': async (as) => (await t.call('GET', `/api/v1/workspaces/${ws}/members/search?q=e`, { as })).status,
    invite: async (as) =>
      (
        await t.call('POST', `/api/v1/workspaces/${ws}/members/invite`, {
          as,
          body: { email: `invitee${++counter}@example.com`, role: 'VIEWER' },
        })
      ).status,
    'list invitations': async (as) => (await t.call('GET', `/api/v1/workspaces/${ws}/invitations`, { as })).status,
    'cancel invitation': async (as) => {
      const inv = await invitation();
      return (await t.call('DELETE', `/api/v1/workspaces/${ws}/invitations/${inv.invitationId}`, { as })).status;
    },
    'resend invitation': async (as) => {
      const inv = await invitation();
      return (await t.call('POST', `/api/v1/workspaces/${ws}/invitations/${inv.invitationId}/resend`, { as })).status;
    },
    'change role': async (as) => {
      const memberId = await freshMember();
      return (
        await t.call('PUT', `/api/v1/workspaces/${ws}/members/${memberId}/role`, { as, body: { role: 'COMMENTER' } })
      ).status;
    },
    'remove member': async (as) => {
      const memberId = await freshMember();
      return (await t.call('DELETE', `/api/v1/workspaces/${ws}/members/${memberId}`, { as })).status;
    },
    leave: async (as) => (await t.call('POST', `/api/v1/workspaces/${ws}/members/leave`, { as })).status,
  };

  beforeAll(async () => {
    t = await startHarness(mode);
    people.OWNER = await signInNew(t, 'Owner');
    people.NON_MEMBER = await signInNew(t, 'Outsider');
    ws = (await createWorkspace(t, people.OWNER, { name: 'Matrix' })).id;
    for (const role of ['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as const) {
      people[role] = await signInNew(t, role.toLowerCase());
      await addMember(t, ws, people.OWNER, people[role], role);
    }
  });
  afterAll(() => t?.stop());

  for (const row of MATRIX) {
    it(`${row.action}: ${EVERYONE.filter((w) => row.expect[w])
      .map((w) => `${w} ${row.expect[w]}`)
      .join(', ')}`, async () => {
      const got: Partial<Record<Who, number>> = {};
      for (const who of EVERYONE) if (row.expect[who] !== undefined) got[who] = await attempts[row.action](people[who]);
      expect(got).toEqual(row.expect);
    });
  }
});
