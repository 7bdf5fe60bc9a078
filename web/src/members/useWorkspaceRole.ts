import { useQuery } from '@tanstack/react-query';
import { membersQuery, meQuery } from '../api/queries';
import type { WorkspaceRole } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** The signed-in person's role in the workspace, once the member list and their profile are read. */
export function useWorkspaceRole(workspaceId: string): WorkspaceRole | undefined {
  const api = useApi();
  const me = useQuery(meQuery(api));
  const members = useQuery(membersQuery(api, workspaceId));
  if (!me.data) return undefined;
  return members.data?.find((member) => member.userId === me.data.id)?.role;
}
