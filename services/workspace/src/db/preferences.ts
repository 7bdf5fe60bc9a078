import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { UserRow, userColumns } from './users.js';

export const PreferenceRow = z.object({
  lastDocumentId: z.string().nullable(),
  lastWorkspaceId: z.string().nullable(),
  theme: z.enum(['light', 'dark', 'system']),
  sidebarCollapsed: z.boolean(),
  locale: z.string(),
  notificationsEnabled: z.boolean(),
  /** Only the types the person chose a mode for (resolveEmailPreferences fills in the rest). */
  emailNotifications: z.record(z.string(), z.string()),
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
  emailNotifications: {},
};

const columns = sql.fragment`
  last_document_id AS "lastDocumentId", last_workspace_id AS "lastWorkspaceId", theme,
  sidebar_collapsed AS "sidebarCollapsed", locale, notifications_enabled AS "notificationsEnabled",
  email_notifications AS "emailNotifications"`;

export type PreferencePatch = Partial<PreferenceRow>;

const COLUMN_OF: Record<keyof PreferenceRow, string> = {
  lastDocumentId: 'last_document_id',
  lastWorkspaceId: 'last_workspace_id',
  theme: 'theme',
  sidebarCollapsed: 'sidebar_collapsed',
  locale: 'locale',
  notificationsEnabled: 'notifications_enabled',
  emailNotifications: 'email_notifications',
};

/**
 * Writes the given fields and leaves the others as they were (or at their defaults). One
 * statement, so two concurrent saves of different fields both stick. `emailNotifications` is
 * merged into what is stored: a partial map changes only the types it names.
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
  const value = (k: keyof PreferenceRow) =>
    k === 'emailNotifications' ? sql.jsonb(initial.emailNotifications) : sql.fragment`${initial[k] as string}`;
  const assignment = (k: keyof PreferenceRow) =>
    k === 'emailNotifications'
      ? sql.fragment`email_notifications = user_preferences.email_notifications || EXCLUDED.email_notifications`
      : sql.fragment`${column(k)} = EXCLUDED.${column(k)}`;
  const updates = [...given.map(assignment), sql.fragment`updated_at = now()`];
  return db.one(sql.type(PreferenceRow)`
    INSERT INTO user_preferences (user_id, ${sql.join(keys.map(column), sql.fragment`, `)})
    VALUES (${userId}, ${sql.join(keys.map(value), sql.fragment`, `)})
    ON CONFLICT (user_id) DO UPDATE SET ${sql.join(updates, sql.fragment`, `)}
    RETURNING ${columns}`);
}

/** What the user saved, locked until the transaction ends; null when they never saved anything. */
export function lockPreferences(db: CommonQueryMethods, userId: string): Promise<PreferenceRow | null> {
  return db.maybeOne(sql.type(PreferenceRow)`
    SELECT ${columns} FROM user_preferences WHERE user_id = ${userId} FOR UPDATE`);
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
  prefEmailNotifications: PreferenceRow.shape.emailNotifications.nullable(),
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
      p.notifications_enabled AS "prefNotificationsEnabled", p.email_notifications AS "prefEmailNotifications"
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
    prefEmailNotifications,
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
        emailNotifications: prefEmailNotifications ?? DEFAULT_PREFERENCES.emailNotifications,
      }
    : DEFAULT_PREFERENCES;
  return { user, preference };
}
