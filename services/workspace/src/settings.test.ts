import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadWorkspaceSettings } from './settings.js';

const settingsOf = (env: Record<string, string>) => loadWorkspaceSettings({ env, gatewayPort: 8080 });

describe('workspace settings', () => {
  it('default to links on the local gateway, open for 7 days', () => {
    expect(settingsOf({})).toEqual({ inviteUrl: 'http://localhost:8080', invitationTtlDays: 7 });
    expect(loadWorkspaceSettings({ env: {}, gatewayPort: 9000 }).inviteUrl).toBe('http://localhost:9000');
    expect(settingsOf({ INVITE_URL: 'https://wiki.example.com/', INVITATION_TTL_DAYS: '30' })).toEqual({
      inviteUrl: 'https://wiki.example.com',
      invitationTtlDays: 30,
    });
  });

  it.each([
    ['INVITE_URL', 'wiki.example.com'],
    ['INVITATION_TTL_DAYS', '0'],
    ['INVITATION_TTL_DAYS', '366'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => settingsOf({ [name]: value })).toThrow(ConfigError);
    expect(() => settingsOf({ [name]: value })).toThrow(name);
  });
});
