import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { UserRow, userColumns } from './users.js';

export const PreferenceRow = z.object({
  lastDocumentId: z.string().nullable(),
  lastWorkspaceId: z.string().nullable(),
  theme: z.enum(['light', 'dark', 'system']),
  sidebarCollapsed: z.boolean(),
  locale: z.string(),
  notificationsEnabled: z.boolean(),
});
export type PreferenceRow = z.infer<typeof PreferenceRow>;

/** What a user who never saved preferences gets. */
export const DEFAULT_PREFERENCES: PreferenceRow = {
  lastDocumentId: null,
  lastWorkspaceId: null,
  theme: 'system',
  sidebarCollapsed: false,
  locale: 'en',
  notificationsEnabled: true,
};

const columns = sql.fragment`
  last_document_id AS "lastDocumentId", last_workspace_id AS "lastWorkspaceId", theme,
  sidebar_collapsed AS "sidebarCollapsed", locale, notifications_enabled AS "notificationsEnabled"`;

export type PreferencePatch = Partial<PreferenceRow>;

const COLUMN_OF: Record<keyof PreferenceRow, string> = {
  lastDocumentId: 'last_document_id',
  lastWorkspaceId: 'last_workspace_id',
  theme: 'theme',
  sidebarCollapsed: 'sidebar_collapsed',
  locale: 'locale',
  notificationsEnabled: 'notifications_enabled',
};

/**
 * Writes the given fields and leaves the others as they were (or at their defaults). One
 * statement, so two concurrent saves of different fields both stick.
 */
export async function savePreferences(
  db: CommonQueryMethods,
  userId: string,
  patch: PreferencePatch,
): Promise<PreferenceRow> {
  const given = (Object.keys(COLUMN_OF) as (keyof PreferenceRow)[]).filter((k) => patch[k] !== undefined);
  const initial: PreferenceRow = { ...DEFAULT_PREFERENCES };
  for (const k of given) (initial as Record<string, unknown>)[k] = patch[k];
  const keys = Object.keys(COLUMN_OF) as (keyof PreferenceRow)[];
  const column = (k: keyof PreferenceRow) => sql.identifier([COLUMN_OF[k]]);
  const updates = [
    ...given.map((k) => sql.fragment`${column(k)} = EXCLUDED.${column(k)}`),
    sql.fragment`updated_at = now()`,
  ];
  return db.one(sql.type(PreferenceRow)`
    INSERT INTO user_preferences (user_id, ${sql.join(keys.map(column), sql.fragment`, `)})
    VALUES (${userId}, ${sql.join(
      keys.map((k) => sql.fragment`${initial[k]}`),
      sql.fragment`, `,
    )})
    ON CONFLICT (user_id) DO UPDATE SET ${sql.join(updates, sql.fragment`, `)}
    RETURNING ${columns}`);
}

/** The row GET /users/me reads: the user's columns, then their preferences' (all null when never saved). */
export const MeRow = UserRow.extend({
  hasPreferences: z.boolean(),
  prefLastDocumentId: z.string().nullable(),
  prefLastWorkspaceId: z.string().nullable(),
  prefTheme: PreferenceRow.shape.theme.nullable(),
  prefSidebarCollapsed: z.boolean().nullable(),
  prefLocale: z.string().nullable(),
  prefNotificationsEnabled: z.boolean().nullable(),
});
export type MeRow = z.infer<typeof MeRow>;

/** A user and their preferences (the defaults when never saved) in one query; null when no such user. */
export async function findUserWithPreferences(
  db: CommonQueryMethods,
  userId: string,
): Promise<{ user: UserRow; preference: PreferenceRow } | null> {
  const row = await db.maybeOne(sql.type(MeRow)`
    SELECT ${userColumns('u')},
      p.user_id IS NOT NULL AS "hasPreferences",
      p.last_document_id AS "prefLastDocumentId", p.last_workspace_id AS "prefLastWorkspaceId", p.theme AS "prefTheme",
      p.sidebar_collapsed AS "prefSidebarCollapsed", p.locale AS "prefLocale",
      p.notifications_enabled AS "prefNotificationsEnabled"
    FROM users u LEFT JOIN user_preferences p ON p.user_id = u.id
    WHERE u.id = ${userId}`);
  return row ? splitMeRow(row) : null;
}

/** The user and their preferences of a MeRow, whichever pool read it. */
export function splitMeRow(row: MeRow): { user: UserRow; preference: PreferenceRow } {
  const {
    hasPreferences,
    prefLastDocumentId,
    prefLastWorkspaceId,
    prefTheme,
    prefSidebarCollapsed,
    prefLocale,
    prefNotificationsEnabled,
    ...user
  } = row;
  const preference: PreferenceRow = hasPreferences
    ? {
        lastDocumentId: prefLastDocumentId,
        lastWorkspaceId: prefLastWorkspaceId,
        theme: prefTheme ?? DEFAULT_PREFERENCES.theme,
        sidebarCollapsed: prefSidebarCollapsed ?? DEFAULT_PREFERENCES.sidebarCollapsed,
        locale: prefLocale ?? DEFAULT_PREFERENCES.locale,
        notificationsEnabled: prefNotificationsEnabled ?? DEFAULT_PREFERENCES.notificationsEnabled,
      }
    : DEFAULT_PREFERENCES;
  return { user, preference };
}
