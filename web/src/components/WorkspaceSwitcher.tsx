import { Menu, Modal, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { workspaceQuery, workspacesQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';
import { NewWorkspaceForm } from './NewWorkspaceForm';

/**
 * The header's workspace menu: the person's workspaces (choosing one opens it) and "New workspace"
 * (a dialog asking its name and description; the new one opens once made).
 */
export function WorkspaceSwitcher({ workspaceId }: { workspaceId: string }) {
  const api = useApi();
  const navigate = useNavigate();
  const current = useQuery(workspaceQuery(api, workspaceId));
  const workspaces = useQuery(workspacesQuery(api));
  const [creating, setCreating] = useState(false);
  const labelId = useId();
  const open = (workspaces.data ?? []).filter((workspace) => !workspace.isArchived);
  // Archived workspaces are closed; their settings page is where an admin opens them again.
  const archived = (workspaces.data ?? []).filter((workspace) => workspace.isArchived);

  return (
    <>
      <Menu position="bottom-start" width={260} shadow="md" withInitialFocusPlaceholder={false}>
        <Menu.Target>
          <UnstyledButton className="switcher-button">
            <span className="visually-hidden">Workspace: </span>
            {current.data?.icon && <span aria-hidden="true">{current.data.icon} </span>}
            {current.data?.name ?? 'Workspace'}
            <span aria-hidden="true"> ▾</span>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          {/* A labelled group: a menu may hold only items, groups and separators (axe). */}
          {/* biome-ignore lint/a11y/useSemanticElements: a fieldset is a form's group, not a menu's */}
          <div role="group" aria-labelledby={`${labelId}-label`}>
            <Menu.Label id={`${labelId}-label`}>Your workspaces</Menu.Label>
            {workspaces.isPending && <Menu.Item disabled>Loading…</Menu.Item>}
            {workspaces.error && (
              <Menu.Item disabled>{`Your workspaces could not be loaded: ${workspaces.error.message}`}</Menu.Item>
            )}
            {open.map((workspace) => (
              <Menu.Item
                key={workspace.id}
                aria-current={workspace.id === workspaceId ? 'true' : undefined}
                leftSection={
                  <span aria-hidden="true">{workspace.id === workspaceId ? '✓' : workspace.icon || ''}</span>
                }
                onClick={() => navigate(`/w/${workspace.id}`)}
              >
                {workspace.name}
              </Menu.Item>
            ))}
          </div>
          {archived.length > 0 && (
            // biome-ignore lint/a11y/useSemanticElements: a fieldset is a form's group, not a menu's
            <div role="group" aria-labelledby={`${labelId}-archived`}>
              <Menu.Label id={`${labelId}-archived`}>Archived workspaces</Menu.Label>
              {archived.map((workspace) => (
                <Menu.Item key={workspace.id} component={Link} to={`/w/${workspace.id}/settings`}>
                  {workspace.name}
                </Menu.Item>
              ))}
            </div>
          )}
          <Menu.Divider />
          <Menu.Item component={Link} to={`/w/${workspaceId}/settings`} leftSection={<span aria-hidden="true">⚙</span>}>
            Workspace settings
          </Menu.Item>
          <Menu.Item onClick={() => setCreating(true)} leftSection={<span aria-hidden="true">+</span>}>
            New workspace
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New workspace"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <NewWorkspaceForm onCreated={() => setCreating(false)} />
      </Modal>
    </>
  );
}
