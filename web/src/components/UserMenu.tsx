import { Menu, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router';
import { meQuery } from '../api/queries';
import { useApi, useAuth } from '../auth/AuthContext';

/** The signed-in person's menu: their settings and signing out. */
export function UserMenu() {
  const { session } = useAuth();
  const api = useApi();
  const me = useQuery(meQuery(api));
  const labelId = useId();
  return (
    <Menu position="bottom-end" width={220} shadow="md" withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <UnstyledButton className="switcher-button account-button">
          <span className="visually-hidden">Account: </span>
          {me.data?.name ?? 'Account'}
          <span aria-hidden="true"> ▾</span>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        {/* A labelled group: a menu may hold only items, groups and separators (axe). */}
        {/* biome-ignore lint/a11y/useSemanticElements: a fieldset is a form's group, not a menu's */}
        <div role="group" aria-labelledby={`${labelId}-label`}>
          <Menu.Label id={`${labelId}-label`}>{me.data ? `Signed in as ${me.data.email}` : 'Signed in'}</Menu.Label>
          <Menu.Item component={Link} to="/settings">
            Settings
          </Menu.Item>
          <Menu.Item onClick={() => void session.signOut()}>Sign out</Menu.Item>
        </div>
      </Menu.Dropdown>
    </Menu>
  );
}
