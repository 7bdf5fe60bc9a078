import { Button, NativeSelect, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { memberKeys } from '../../api/queries';
import type { InvitationResult, WorkspaceRole } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { grantableRoles, type Party, ROLE_HINT, ROLE_LABEL } from '../../members/rules';

/** Invite by e-mail with a role and an optional message (POST .../members/invite). */
export function InviteForm({ workspaceId, actor }: { workspaceId: string; actor: Party }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const roles = grantableRoles(actor.role);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('EDITOR');
  const [message, setMessage] = useState('');

  const invite = useMutation({
    mutationFn: () =>
      api.post<InvitationResult>(`/workspaces/${workspaceId}/members/invite`, {
        email: email.trim(),
        role,
        message: message.trim() || undefined,
      }),
    onSuccess: async () => {
      setEmail('');
      setMessage('');
      await queryClient.invalidateQueries({ queryKey: memberKeys.invitations(workspaceId) });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim()) invite.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form invite-form">
      <TextInput
        label="Email"
        type="email"
        required
        maxLength={255}
        autoComplete="off"
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        placeholder="name@example.com"
      />
      <NativeSelect
        label="Role"
        value={role}
        onChange={(event) => setRole(event.currentTarget.value as WorkspaceRole)}
        data={roles.map((value) => ({ value, label: `${ROLE_LABEL[value]}: ${ROLE_HINT[value]}` }))}
      />
      <Textarea
        label="Message"
        description="Optional: a note that comes with the invitation"
        maxLength={500}
        autosize
        minRows={2}
        value={message}
        onChange={(event) => setMessage(event.currentTarget.value)}
      />
      {invite.error && (
        <p role="alert" className="error-text">
          {invite.error.message}
        </p>
      )}
      <p role="status" className="quiet">
        {invite.isSuccess
          ? `Invited ${invite.data.email} as ${ROLE_LABEL[invite.data.role]}. They get an e-mail; you can also copy their link below.`
          : ''}
      </p>
      <div>
        <Button type="submit" loading={invite.isPending}>
          Invite
        </Button>
      </div>
    </form>
  );
}
