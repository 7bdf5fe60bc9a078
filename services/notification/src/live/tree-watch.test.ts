import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TREE_COALESCE_MS, TreeWatchers, treeChangeOf } from './tree-watch.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const W = '00000000-0000-4000-8000-000000000001';

describe('which events change a workspace’s tree', () => {
  it('places, titles and icons do; content, covers and comment events (counts come from the document service) do not', () => {
    const data = (extra: Record<string, unknown> = {}) => ({ workspaceId: W, ...extra });
    for (const type of ['document.created', 'document.moved', 'document.archived', 'document.deleted'])
      expect(treeChangeOf(type, data())).toBe(W);
    expect(treeChangeOf('document.updated', data({ changed: ['title'] }))).toBe(W);
    expect(treeChangeOf('document.updated', data({ changed: ['icon', 'content'] }))).toBe(W);
    expect(treeChangeOf('document.updated', data({ changed: ['content', 'lastEditedBy'] }))).toBeNull();
    expect(treeChangeOf('document.updated', data({ changed: ['coverImageUrl'] }))).toBeNull();
    expect(treeChangeOf('comment.thread_resolved', data())).toBeNull();
    expect(treeChangeOf('comment.added', data())).toBeNull();
    expect(treeChangeOf('document.published', data())).toBeNull();
  });
});

describe('TreeWatchers', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a burst of one workspace’s events is one message to each watcher of it; others hear nothing', () => {
    const watchers = new TreeWatchers(silent);
    const ben = { userId: 'ben', write: vi.fn() };
    const other = { userId: 'cy', write: vi.fn() };
    watchers.watch(W, ben);
    watchers.watch('another', other);
    for (let i = 0; i < 5; i++) watchers.take('document.archived', { workspaceId: W });
    vi.advanceTimersByTime(TREE_COALESCE_MS);
    expect(ben.write).toHaveBeenCalledTimes(1);
    expect(ben.write).toHaveBeenCalledWith(`event: tree\ndata: {"workspaceId":"${W}"}\n\n`);
    expect(other.write).not.toHaveBeenCalled();
  });

  it('a removed member and a closed stream stop hearing', () => {
    const watchers = new TreeWatchers(silent);
    const ben = { userId: 'ben', write: vi.fn() };
    const ann = { userId: 'ann', write: vi.fn() };
    const unwatchAnn = watchers.watch(W, ann);
    watchers.watch(W, ben);
    watchers.take('member.removed', { workspaceId: W, userId: 'ben' });
    unwatchAnn();
    watchers.take('document.created', { workspaceId: W });
    vi.advanceTimersByTime(TREE_COALESCE_MS);
    expect(ben.write).not.toHaveBeenCalled();
    expect(ann.write).not.toHaveBeenCalled();
  });
});
