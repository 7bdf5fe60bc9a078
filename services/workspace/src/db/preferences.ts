import { type CommonQueryMethods, sql, z } from '@wiki/db';

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

export async function findPreferences(db: CommonQueryMethods, userId: string): Promise<PreferenceRow> {
  const row = await db.maybeOne(
    sql.type(PreferenceRow)`SELECT ${columns} FROM user_preferences WHERE user_id = ${userId}`,
  );
  return row ?? DEFAULT_PREFERENCES;
}

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
