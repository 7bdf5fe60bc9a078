import { NativeSelect, SimpleGrid } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { userKeys } from '../api/queries';
import type { EmailMode, NotificationType, User } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { NOTIFICATION_TYPE_LABELS } from './labels';

const MODES: { value: EmailMode; label: string }[] = [
  { value: 'off', label: 'Off' },
  { value: 'instant', label: 'Instant' },
  { value: 'digest', label: 'In the digest' },
];

const TYPES = Object.keys(NOTIFICATION_TYPE_LABELS) as NotificationType[];

interface Change {
  type: NotificationType;
  mode: EmailMode;
}

/** Personal settings: how each notification type is e-mailed (ARCHITECTURE 5.18), one select per type. */
export function EmailPreferencesSection({ user }: { user: User }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: ({ type, mode }: Change) =>
      api.put<User>('/users/me/preferences', { emailNotifications: { [type]: mode } }),
    onSuccess: (saved) => queryClient.setQueryData(userKeys.me, saved),
  });
  const stored = user.preference.emailNotifications;
  // While a change is on its way the select shows it; a refused one goes back to what is stored.
  const modeOf = (type: NotificationType): EmailMode =>
    save.isPending && save.variables.type === type ? save.variables.mode : (stored?.[type] ?? 'digest');

  return (
    <section aria-labelledby="settings-email">
      <h2 id="settings-email">E-mail</h2>
      <p className="hint">
        Which notifications also reach you by e-mail: each at once, gathered into a digest, or not at all. Every e-mail
        has a link to stop that kind.
      </p>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {TYPES.map((type) => (
          <NativeSelect
            key={type}
            label={NOTIFICATION_TYPE_LABELS[type]}
            data={MODES}
            value={modeOf(type)}
            onChange={(event) => save.mutate({ type, mode: event.currentTarget.value as EmailMode })}
          />
        ))}
      </SimpleGrid>
      <p role="status" className="hint">
        {save.isSuccess && `Saved: ${NOTIFICATION_TYPE_LABELS[save.variables.type]}.`}
      </p>
      {save.error && (
        <p role="alert">
          {NOTIFICATION_TYPE_LABELS[save.variables.type]} was not saved: {save.error.message}
        </p>
      )}
    </section>
  );
}
