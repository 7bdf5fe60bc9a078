import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { memberKeys } from '../../api/queries';
import type { WorkspaceMember, WorkspaceRole } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { grantableRoles, isAdmin, type Party, ROLE_LABEL, whyNotChangeRole, whyNotRemove } from '../../members/rules';

interface Props {
  workspaceId: string;
  member: WorkspaceMember;
  actor: Party;
  /** Asks before removing (the confirmation lives with the list). */
  onRemove: (member: WorkspaceMember) => void;
  /** Tells the list's status line what happened. */
  onSaid: (message: string) => void;
}

/**
 * One member: name, e-mail, role. Admins get a role select and Remove, disabled with the reason
 * when the rules forbid them for this member; everyone else reads the role.
 */
export function MemberRow({ workspaceId, member, actor, onRemove, onSaid }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const roleReasonId = useId();
  const removeReasonId = useId();
  const isYou = member.userId === actor.userId;
  const name = member.userName || member.userEmail;

  const changeRole = useMutation({
    mutationFn: (role: WorkspaceRole) =>
      api.put<WorkspaceMember>(`/workspaces/${workspaceId}/members/${member.id}/role`, { role }),
    onSuccess: (changed) => {
      queryClient.setQueryData<WorkspaceMember[]>(memberKeys.list(workspaceId), (list) =>
        list?.map((m) => (m.id === changed.id ? changed : m)),
      );
      void queryClient.invalidateQueries({ queryKey: memberKeys.all(workspaceId) });
      onSaid(`${name} is now ${ROLE_LABEL[changed.role]}.`);
    },
  });

  const roleReason = whyNotChangeRole(actor, member);
  const removeReason = whyNotRemove(actor, member);
  const shownRole = changeRole.isPending ? changeRole.variables : member.role;
  const choices = grantableRoles(actor.role);
  if (!choices.includes(member.role)) choices.unshift(member.role);

  return (
    <tr>
      <td>
        {name}
        {isYou && <span className="quiet"> (you)</span>}
      </td>
      <td>{member.userEmail}</td>
      <td>
        {isAdmin(actor.role) ? (
          <>
            <select
              aria-label={`Role of ${name}`}
              value={shownRole}
              disabled={roleReason !== null || changeRole.isPending}
              aria-describedby={roleReason ? roleReasonId : undefined}
              onChange={(event) => changeRole.mutate(event.currentTarget.value as WorkspaceRole)}
            >
              {choices.map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABEL[role]}
                </option>
              ))}
            </select>
            {roleReason && (
              <span id={roleReasonId} className="reason">
                {roleReason}
              </span>
            )}
            {changeRole.error && (
              <span role="alert" className="reason">
                {changeRole.error.message}
              </span>
            )}
          </>
        ) : (
          ROLE_LABEL[member.role]
        )}
      </td>
      {isAdmin(actor.role) && (
        <td>
          <button
            type="button"
            aria-label={`Remove ${name}`}
            disabled={removeReason !== null}
            aria-describedby={removeReason ? removeReasonId : undefined}
            onClick={() => onRemove(member)}
          >
            Remove
          </button>
          {removeReason && (
            <span id={removeReasonId} className="reason">
              {removeReason}
            </span>
          )}
        </td>
      )}
    </tr>
  );
}
