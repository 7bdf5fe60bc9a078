import type { Session } from './session';

const STORAGE_KEY = 'wiki.dev-session';

interface StoredToken {
  accessToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

function readStored(): StoredToken | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as StoredToken | null;
    if (value && value.expiresAt > Date.now() + 5_000) return value;
  } catch {
    // A damaged entry is the same as none.
  }
  return null;
}

/**
 * The quick-start provider (AUTH_PROVIDER=dev): the sign-in form posts an e-mail and a name to the
 * gateway's dev-only `POST /auth/dev/sign-in` and keeps the token it answers in localStorage.
 */
export class DevSession implements Session {
  readonly provider = 'dev' as const;
  private readonly listeners = new Set<() => void>();

  constructor() {
    // Signing in or out in another tab shows here too.
    window.addEventListener('storage', (event) => {
      if (event.key === STORAGE_KEY || event.key === null) this.emit();
    });
  }

  async accessToken(): Promise<string | null> {
    return readStored()?.accessToken ?? null;
  }

  async signIn(returnTo: string): Promise<void> {
    window.location.assign(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  }

  /** Called by the dev sign-in form. */
  async signInWith(email: string, name: string): Promise<void> {
    const response = await fetch('/auth/dev/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(name ? { email, name } : { email }),
    });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error(body?.error?.message ?? `Sign-in failed (HTTP ${response.status}).`);
    const stored: StoredToken = { accessToken: body.accessToken, expiresAt: Date.now() + body.expiresIn * 1000 };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
    this.emit();
  }

  async completeSignIn(): Promise<string | null> {
    return '/';
  }

  async signInAgain(returnTo: string): Promise<void> {
    localStorage.removeItem(STORAGE_KEY);
    await this.signIn(returnTo);
  }

  async signOut(): Promise<void> {
    localStorage.removeItem(STORAGE_KEY);
    window.location.assign('/sign-in?signedOut=1');
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
