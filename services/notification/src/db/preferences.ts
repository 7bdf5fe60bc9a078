import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { type EmailPreferences, resolveEmailPreferences } from '@wiki/events';

/** What user.preferences_changed carries, as this service keeps it. */
export interface PreferenceChange {
  userId: string;
  notificationsEnabled: boolean;
  /** The full type → mode map after the change; absent on events from before e-mail (kept as it was). */
  emailNotifications?: Record<string, string>;
  locale?: string | null;
}

export async function savePreference(db: CommonQueryMethods, change: PreferenceChange, at: string) {
  const email = change.emailNotifications === undefined ? null : sql.jsonb(change.emailNotifications);
  const locale = change.locale === undefined ? null : change.locale;
  const keepEmail = change.emailNotifications === undefined;
  const keepLocale = change.locale === undefined;
  await db.query(sql.unsafe`
    INSERT INTO notification_preferences AS p (user_id, enabled, email_notifications, locale, event_at)
    VALUES (${change.userId}, ${change.notificationsEnabled}, ${email}, ${locale}, ${at})
    ON CONFLICT (user_id) DO UPDATE SET enabled = EXCLUDED.enabled, event_at = EXCLUDED.event_at,
      email_notifications = CASE WHEN ${keepEmail} THEN p.email_notifications ELSE EXCLUDED.email_notifications END,
      locale = CASE WHEN ${keepLocale} THEN p.locale ELSE EXCLUDED.locale END
      WHERE p.event_at <= EXCLUDED.event_at`);
}

/** False only when the user turned notifications off. */
export async function wantsNotifications(db: CommonQueryMethods, userId: string): Promise<boolean> {
  const enabled = await db.maybeOneFirst(sql.type(z.object({ enabled: z.boolean() }))`
    SELECT enabled FROM notification_preferences WHERE user_id = ${userId}`);
  return enabled ?? true;
}

export interface MailPreferences {
  enabled: boolean;
  modes: EmailPreferences;
  locale: string | null;
}

const MailRow = z.object({
  enabled: z.boolean(),
  modes: z.record(z.string(), z.string()).nullable(),
  locale: z.string().nullable(),
});

/** How the user wants e-mail: a user with no row has the defaults of ARCHITECTURE 5.18. */
export async function mailPreferencesOf(db: CommonQueryMethods, userId: string): Promise<MailPreferences> {
  const row = await db.maybeOne(sql.type(MailRow)`
    SELECT enabled, email_notifications AS modes, locale FROM notification_preferences WHERE user_id = ${userId}`);
  return {
    enabled: row?.enabled ?? true,
    modes: resolveEmailPreferences(row?.modes ?? null),
    locale: row?.locale ?? null,
  };
}
