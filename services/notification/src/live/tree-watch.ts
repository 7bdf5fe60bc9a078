import { type EventBus, type Logger, liveSubject, THREAD_COUNTS_TOPIC } from '@wiki/events';

/**
 * Events that change what a workspace's document tree shows: places, titles, icons. Open comment
 * counts are announced by the document service once it has counted a thread event (THREAD_COUNTS_TOPIC):
 * the comment event itself can arrive before the count it changes can be read.
 */
const DOCUMENT_TREE_EVENTS = new Set([
  'document.created',
  'document.moved',
  'document.archived',
  'document.restored',
  'document.deleted',
]);
/** document.updated changes the tree only through these fields (a content save does not). */
const TREE_FIELDS = new Set(['title', 'icon']);
/** Events of one workspace within this long make one `tree` message (archiving a subtree sends several). */
export const TREE_COALESCE_MS = 100;

/** A stream that wants a workspace's `tree` messages. */
export interface TreeWatcher {
  userId: string;
  write(chunk: string): void;
}

/** The workspace whose tree an event changed, or null when it changed none. */
export function treeChangeOf(type: string, data: Record<string, unknown>): string | null {
  const workspaceId = typeof data.workspaceId === 'string' ? data.workspaceId : null;
  if (DOCUMENT_TREE_EVENTS.has(type)) return workspaceId;
  if (type === 'document.updated') {
    const changed = Array.isArray(data.changed) ? data.changed : [];
    return changed.some((field) => TREE_FIELDS.has(field)) ? workspaceId : null;
  }
  return null;
}

/**
 * The streams of this replica that show a workspace's tree (`GET /notifications/stream?workspaceId=`),
 * told `event: tree` when a document event changes that tree. Every replica listens with plain
 * NATS subscriptions (its own streams only; nothing to keep), and reads an event only while it
 * holds a stream that watches some tree. The message names the workspace and nothing else, so its
 * size never depends on what people wrote; the page reads the lists it shows again.
 */
export class TreeWatchers {
  private readonly byWorkspace = new Map<string, Set<TreeWatcher>>();
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(private readonly logger: Logger) {}

  /** Registers the stream; the returned function lets go of it (the stream closed). */
  watch(workspaceId: string, watcher: TreeWatcher): () => void {
    let set = this.byWorkspace.get(workspaceId);
    if (!set) {
      set = new Set();
      this.byWorkspace.set(workspaceId, set);
    }
    set.add(watcher);
    return () => this.unwatch(workspaceId, (w) => w === watcher);
  }

  connect(bus: EventBus): { stop(): Promise<void> } {
    const subscriptions = ['document.*', 'member.removed'].map((pattern) =>
      bus.nc.subscribe(`${bus.prefix}.${pattern}`, {
        callback: (error, msg) => {
          if (error || this.byWorkspace.size === 0) return;
          try {
            const envelope = msg.json<{ type?: string; data?: Record<string, unknown> }>();
            if (typeof envelope?.type === 'string' && envelope.data) this.take(envelope.type, envelope.data);
          } catch (cause) {
            this.logger.warn({ err: cause, subject: msg.subject }, 'notification: an unreadable event was skipped');
          }
        },
      }),
    );
    subscriptions.push(
      bus.nc.subscribe(liveSubject(bus.prefix, THREAD_COUNTS_TOPIC), {
        callback: (error, msg) => {
          if (error || this.byWorkspace.size === 0) return;
          try {
            const { workspaceId } = msg.json<{ workspaceId?: unknown }>();
            if (typeof workspaceId === 'string') this.changed(workspaceId);
          } catch (cause) {
            this.logger.warn(
              { err: cause, subject: msg.subject },
              'notification: an unreadable count signal was skipped',
            );
          }
        },
      }),
    );
    return {
      stop: async () => {
        for (const subscription of subscriptions) subscription.unsubscribe();
        for (const timer of this.pending.values()) clearTimeout(timer);
        this.pending.clear();
      },
    };
  }

  /** An event as it arrived (exported for the tests of the rules). */
  take(type: string, data: Record<string, unknown>): void {
    if (type === 'member.removed') {
      // A removed member's stream stops hearing of that workspace at once.
      const { workspaceId, userId } = data;
      if (typeof workspaceId === 'string') this.unwatch(workspaceId, (w) => w.userId === userId);
      return;
    }
    const workspaceId = treeChangeOf(type, data);
    if (workspaceId) this.changed(workspaceId);
  }

  /** Tells the workspace's watchers, once for the changes within TREE_COALESCE_MS. */
  changed(workspaceId: string): void {
    if (!this.byWorkspace.has(workspaceId) || this.pending.has(workspaceId)) return;
    const timer = setTimeout(() => {
      this.pending.delete(workspaceId);
      const chunk = `event: tree\ndata: ${JSON.stringify({ workspaceId })}\n\n`;
      for (const watcher of this.byWorkspace.get(workspaceId) ?? []) watcher.write(chunk);
    }, TREE_COALESCE_MS);
    timer.unref();
    this.pending.set(workspaceId, timer);
  }

  private unwatch(workspaceId: string, which: (watcher: TreeWatcher) => boolean): void {
    const set = this.byWorkspace.get(workspaceId);
    if (!set) return;
    for (const watcher of set) if (which(watcher)) set.delete(watcher);
    if (set.size === 0) this.byWorkspace.delete(workspaceId);
  }
}
