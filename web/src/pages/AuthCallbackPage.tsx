import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useAuth } from '../auth/AuthContext';

/** `/auth/callback`: the identity provider sends the person (or the silent renewal) back here. */
export function AuthCallbackPage() {
  const { session } = useAuth();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const done = useRef(false);

  useEffect(() => {
    // React's development double effect would spend the one-time code twice.
    if (done.current) return;
    done.current = true;
    session
      .completeSignIn()
      .then((returnTo) => {
        // A silent renewal's hidden frame has handed its answer to the app: nothing to show.
        if (returnTo !== null) navigate(returnTo, { replace: true });
      })
      .catch((failure: Error) => setError(failure.message));
  }, [session, navigate]);

  if (error) {
    return (
      <main className="centered-page">
        <h1>Sign-in did not complete</h1>
        <p role="alert">{error}</p>
        <a href="/">Try again</a>
      </main>
    );
  }
  return <p className="loading">Signing in…</p>;
}
