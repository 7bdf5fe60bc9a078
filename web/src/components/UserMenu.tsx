import { useAuth } from '../auth/AuthContext';

/** The signed-in person's menu: sign out (personal settings join it later). */
export function UserMenu() {
  const { session } = useAuth();
  return (
    <button type="button" onClick={() => void session.signOut().then(() => window.location.assign('/'))}>
      Sign out
    </button>
  );
}
