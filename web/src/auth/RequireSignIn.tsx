import { type ReactNode, useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { useAuth } from './AuthContext';

/** Renders its children for a signed-in person; anyone else goes to sign in and comes back here. */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { session } = useAuth();
  const location = useLocation();
  const [status, setStatus] = useState<'checking' | 'in' | 'out'>('checking');

  useEffect(() => {
    let live = true;
    const check = () =>
      session.accessToken().then((token) => {
        if (live) setStatus(token ? 'in' : 'out');
      });
    check();
    const unsubscribe = session.onChange(check);
    return () => {
      live = false;
      unsubscribe();
    };
  }, [session]);

  useEffect(() => {
    if (status === 'out') void session.signIn(`${location.pathname}${location.search}${location.hash}`);
  }, [status, session, location]);

  if (status !== 'in') return <p className="loading">Signing in…</p>;
  return <>{children}</>;
}
