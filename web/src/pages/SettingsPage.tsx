import { NativeSelect, Radio, Stack, useMantineColorScheme } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { meQuery, userKeys } from '../api/queries';
import type { Preferences, User } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { ConnectAssistant } from '../components/mcp/ConnectAssistant';
import { McpKeysSection } from '../components/mcp/McpKeysSection';
import { colorSchemeOf } from '../components/PreferredTheme';
import { formatDateTime, LOCALES } from '../locale/dates';
import { EmailPreferencesSection } from '../notifications/EmailPreferencesSection';

type Theme = NonNullable<Preferences['theme']>;
const THEMES: { value: Theme; label: string }[] = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'system', label: 'Same as the device' },
];

/** A fixed moment the locale setting shows written out, so a change is seen at once. */
const EXAMPLE_DATE = '2026-03-14T15:09:00Z';

/**
 * `/settings`: who is signed in, the theme (`theme`), the locale (`locale`), e-mail per notification
 * type (`emailNotifications`), MCP keys and how to connect an assistant.
 */
export function SettingsPage() {
  const api = useApi();
  const queryClient = useQueryClient();
  const me = useQuery(meQuery(api));
  const { setColorScheme } = useMantineColorScheme();

  const saveTheme = useMutation({
    mutationFn: (theme: Theme) => api.put<User>('/users/me/preferences', { theme }),
    onMutate: (theme) => setColorScheme(colorSchemeOf(theme)),
    onSuccess: (user) => queryClient.setQueryData(userKeys.me, user),
    // The page shows what is stored: a refused change goes back to it.
    onError: () => setColorScheme(colorSchemeOf(me.data?.preference.theme)),
  });
  const saveLocale = useMutation({
    mutationFn: (locale: string) => api.put<User>('/users/me/preferences', { locale }),
    onSuccess: (user) => queryClient.setQueryData(userKeys.me, user),
  });
  const locale = saveLocale.isPending ? saveLocale.variables : me.data?.preference.locale;

  return (
    <div className="settings-frame">
      <header className="app-header">
        <Link to="/">← Back to your wiki</Link>
      </header>
      <main className="page">
        <h1>Settings</h1>
        {me.error && <p role="alert">{me.error.message}</p>}
        {me.isPending && <p>Loading…</p>}
        {me.data && (
          <>
            <section aria-labelledby="settings-profile">
              <h2 id="settings-profile">Profile</h2>
              <dl className="facts">
                <dt>Name</dt>
                <dd>{me.data.name}</dd>
                <dt>Email</dt>
                <dd>{me.data.email}</dd>
              </dl>
              <p className="hint">Your name and e-mail come from your sign-in provider.</p>
            </section>
            <section aria-labelledby="settings-appearance">
              <h2 id="settings-appearance">Appearance</h2>
              <Radio.Group
                label="Theme"
                value={saveTheme.isPending ? saveTheme.variables : (me.data.preference.theme ?? 'system')}
                onChange={(value) => saveTheme.mutate(value as Theme)}
              >
                <Stack gap="xs" mt="xs">
                  {THEMES.map((theme) => (
                    <Radio key={theme.value} value={theme.value} label={theme.label} />
                  ))}
                </Stack>
              </Radio.Group>
              {saveTheme.error && <p role="alert">{saveTheme.error.message}</p>}
            </section>
            <section aria-labelledby="settings-locale">
              <h2 id="settings-locale">Language and region</h2>
              <NativeSelect
                label="Language and region"
                description="How dates and numbers are written in the app."
                data={LOCALES}
                value={LOCALES.some((l) => l.value === locale) ? locale : 'en'}
                onChange={(event) => saveLocale.mutate(event.currentTarget.value)}
              />
              <p className="hint">
                For example: <span data-testid="locale-example">{formatDateTime(EXAMPLE_DATE, locale)}</span>
              </p>
              {saveLocale.error && <p role="alert">{saveLocale.error.message}</p>}
            </section>
            <EmailPreferencesSection user={me.data} />
            <McpKeysSection />
            <ConnectAssistant />
          </>
        )}
      </main>
    </div>
  );
}
