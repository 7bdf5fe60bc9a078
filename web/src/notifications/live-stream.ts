// The notification stream of one tab, kept open while the tab is in use: reconnects with back-off
// and resumes after the last event it saw (Last-Event-ID), closes when the tab has been hidden a
// while or the person signs out. The server keeps at most a few streams per user, newest first
// (docs/DECISIONS.md "Long-lived connections per user"): one per tab, never more.
import type { ApiClient } from '../api/client';
import type { StreamMessage } from '../api/event-stream';

const PATH = '/notifications/stream';
/** A tab hidden this long gives its stream up; it resumes from where it was when shown again. */
export const HIDDEN_CLOSE_MS = 5 * 60_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** Pushed out by a newer stream of the same person (another tab): come back when looked at, or later. */
const PUSHED_OUT_RETRY_MS = 30_000;

export interface LiveHandlers {
  onMessage: (message: StreamMessage) => void;
  /** Each time a stream is open again (the caller may refresh what it could have missed). */
  onOpen?: () => void;
}

export class LiveNotifications {
  private lastEventId: string | undefined;
  /** The workspace whose `tree` events the stream carries too (the one the sidebar shows). */
  private treeOf: string | null = null;
  private connection: AbortController | null = null;
  private wake: (() => void) | null = null;
  private hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** The page was left and may sit in the back/forward cache: no stream until it is shown again. */
  private left = false;
  private failures = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly handlers: LiveHandlers,
  ) {}

  start(): void {
    document.addEventListener('visibilitychange', this.onVisibility);
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    void this.run();
  }

  /**
   * Follows another workspace's tree: the open stream is ended and a new one, resuming after the
   * last event seen, names the workspace.
   */
  watchTree(workspaceId: string | null): void {
    if (workspaceId === this.treeOf) return;
    this.treeOf = workspaceId;
    this.connection?.abort();
  }

  /** For good (unmount, sign-out). */
  stop(): void {
    this.stopped = true;
    document.removeEventListener('visibilitychange', this.onVisibility);
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    clearTimeout(this.hiddenTimer);
    this.connection?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.left) {
        await this.sleep(Number.POSITIVE_INFINITY);
        continue;
      }
      if (document.visibilityState === 'hidden' && this.hiddenTimer === undefined && this.connection === null) {
        // Closed while hidden: wait to be looked at again.
        await this.sleep(Number.POSITIVE_INFINITY);
        continue;
      }
      const controller = new AbortController();
      this.connection = controller;
      let pushedOut = false;
      try {
        const path = this.treeOf ? `${PATH}?workspaceId=${encodeURIComponent(this.treeOf)}` : PATH;
        await this.api.stream(path, {
          lastEventId: this.lastEventId,
          signal: controller.signal,
          onOpen: () => {
            this.failures = 0;
            this.handlers.onOpen?.();
          },
          onMessage: (message) => {
            if (message.id) this.lastEventId = message.id;
            if (message.event === 'reconnect') pushedOut = message.data.includes('too many streams');
            else this.handlers.onMessage(message);
          },
        });
      } catch (error) {
        if ((error as { status?: number }).status === 401) return; // signing in again
        this.failures += 1;
      }
      this.connection = null;
      if (this.stopped || controller.signal.aborted) continue;
      await this.sleep(pushedOut ? PUSHED_OUT_RETRY_MS : this.backOff());
    }
  }

  /** 1 s, 2 s, 4 s… up to 30 s, each somewhat shortened at random so that tabs do not come back together. */
  private backOff(): number {
    const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, this.failures - 1));
    return ceiling * (0.5 + Math.random() / 2);
  }

  /** Waits `ms`, or less when the tab is shown again or the stream is stopped. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      this.wake = done;
    });
  }

  /**
   * Leaving the page (a reload, a link to another site, closing): the stream ends now. A page kept
   * in the back/forward cache would otherwise keep its stream, and with it one of the browser's six
   * connections to the server, until the server's next write failed; a few reloads left the next
   * page waiting for a free connection for most of a minute.
   */
  private readonly onPageHide = () => {
    this.left = true;
    this.connection?.abort();
    this.connection = null;
  };

  /** Back from the back/forward cache: the stream resumes after the last event it saw. */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted || !this.left) return;
    this.left = false;
    this.failures = 0;
    this.wake?.();
  };

  private readonly onVisibility = () => {
    if (document.visibilityState === 'hidden') {
      clearTimeout(this.hiddenTimer);
      this.hiddenTimer = setTimeout(() => {
        this.hiddenTimer = undefined;
        this.connection?.abort();
        this.connection = null;
      }, HIDDEN_CLOSE_MS);
      return;
    }
    clearTimeout(this.hiddenTimer);
    this.hiddenTimer = undefined;
    // Shown again: a closed or waiting stream comes back now.
    this.failures = 0;
    this.wake?.();
  };
}
