import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { DevSession } from '../auth/dev-session';
import { safeReturnTo } from '../auth/session';

/** `/sign-in`: the dev provider's form; under OIDC it hands over to the identity provider. */
export function SignInPage() {
  const { session } = useAuth();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const returnTo = safeReturnTo(params.get('returnTo'));
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!(session instanceof DevSession)) void session.signIn(returnTo);
  }, [session, returnTo]);

  if (!(session instanceof DevSession)) return <p className="loading">Taking you to sign in…</p>;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await session.signInWith(email.trim(), name.trim());
      navigate(returnTo, { replace: true });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="centered-page">
      <h1>Sign in to the wiki</h1>
      {params.has('signedOut') && <p role="status">You have signed out.</p>}
      <p>Development sign-in: any e-mail address signs you in as that person (the first time makes the account).</p>
      <form onSubmit={submit} className="stack-form">
        <label>
          Email
          <input
            type="email"
            required
            autoComplete="email"
            // biome-ignore lint/a11y/noAutofocus: the form is the whole page; typing starts here
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Name
          <input
            type="text"
            autoComplete="name"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
