import { useQuery } from '@tanstack/react-query';
import { meQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';

/** The signed-in person's preference `locale` (undefined until it is known: the browser's is used). */
export function usePreferredLocale(): string | undefined {
  const api = useApi();
  return useQuery(meQuery(api)).data?.preference.locale;
}
