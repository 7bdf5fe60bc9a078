import { Menu, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { meQuery } from '../api/queries';
import { useApi, useAuth } from '../auth/AuthContext';

/** The signed-in person's menu: their settings and signing out. */
export function UserMenu() {
  const { session } = useAuth();
  const api = useApi();
  const me = useQuery(meQuery(api));
  return (
    <Menu position="bottom-end" width={220} shadow="md">
      <Menu.Target>
        <UnstyledButton className="switcher-button">
          <span className="visually-hidden">Account: </span>
          {me.data?.name ?? 'Account'}
          <span aria-hidden="true"> ▾</span>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        {me.data && <Menu.Label>{me.data.email}</Menu.Label>}
        <Menu.Item component={Link} to="/settings">
          Settings
        </Menu.Item>
        <Menu.Item onClick={() => void session.signOut()}>Sign out</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
