import { type Config, readEnv, url, wholeNumber } from '@wiki/config';

/** What the workspace service reads besides the shared configuration (libs/config). */
export interface WorkspaceSettings {
  /** Where invitation links point (INVITE_URL, default http://localhost:<PORT>): `<INVITE_URL>/invite/<token>`. */
  inviteUrl: string;
  /** How long an invitation stays open (INVITATION_TTL_DAYS, default 7). */
  invitationTtlDays: number;
}

/** Read by buildApp; a bad value names its variable (ConfigError). */
export function loadWorkspaceSettings(config: Pick<Config, 'env' | 'gatewayPort'>): WorkspaceSettings {
  const read = readEnv(config.env, {
    INVITE_URL: url(['http:', 'https:'], `http://localhost:${config.gatewayPort}`),
    INVITATION_TTL_DAYS: wholeNumber(7, { min: 1, max: 365 }),
  });
  return { inviteUrl: read.INVITE_URL, invitationTtlDays: read.INVITATION_TTL_DAYS };
}
