import { useMantineColorScheme } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { meQuery } from '../api/queries';
import type { Preferences } from '../api/types';
import { useAuth } from '../auth/AuthContext';

/** The preference `theme` as Mantine's color scheme ("system" follows the device). */
export function colorSchemeOf(theme: Preferences['theme']): 'light' | 'dark' | 'auto' {
  return theme === 'light' || theme === 'dark' ? theme : 'auto';
}

/**
 * Applies the signed-in person's theme preference. Mantine keeps the scheme in localStorage, and
 * index.html's inline script applies that before the first paint of the next visit.
 */
export function PreferredTheme() {
  const { api, signedIn } = useAuth();
  const me = useQuery({ ...meQuery(api), enabled: signedIn });
  const { setColorScheme } = useMantineColorScheme();
  const theme = me.data?.preference.theme;
  // Applied when the preference changes, not whenever Mantine hands out a new setter (it does on
  // every scheme change, including one another tab made through localStorage).
  const applied = useRef<Preferences['theme']>(undefined);
  useEffect(() => {
    if (!theme || theme === applied.current) return;
    applied.current = theme;
    setColorScheme(colorSchemeOf(theme));
  }, [theme, setColorScheme]);
  return null;
}
