import { describe, expect, it } from 'vitest';
import {
  anchorProblem,
  canDeleteComment,
  canDeleteThread,
  canEditComment,
  nextStatus,
  participantsOf,
} from './rules.js';

const ME = 'me';
const OTHER = 'other';

describe('comment rules', () => {
  it('lets only the author edit, while they can still comment', () => {
    expect(canEditComment(ME, 'COMMENTER', ME)).toBe(true);
    expect(canEditComment(ME, 'OWNER', OTHER)).toBe(false);
    expect(canEditComment(ME, 'VIEWER', ME)).toBe(false);
  });

  it('lets the author or an ADMIN+ delete a comment', () => {
    expect(canDeleteComment(ME, 'VIEWER', ME)).toBe(true);
    expect(canDeleteComment(ME, 'ADMIN', OTHER)).toBe(true);
    expect(canDeleteComment(ME, 'OWNER', OTHER)).toBe(true);
    expect(canDeleteComment(ME, 'EDITOR', OTHER)).toBe(false);
  });

  it('lets the creator or an ADMIN+ delete a thread', () => {
    expect(canDeleteThread(ME, 'COMMENTER', ME)).toBe(true);
    expect(canDeleteThread(ME, 'ADMIN', OTHER)).toBe(true);
    expect(canDeleteThread(ME, 'EDITOR', OTHER)).toBe(false);
  });

  it('follows the thread state table', () => {
    expect(nextStatus('open', 'resolve')).toBe('resolved');
    expect(nextStatus('resolved', 'reopen')).toBe('open');
    expect(nextStatus('resolved', 'resolve')).toBeNull();
    expect(nextStatus('open', 'reopen')).toBeNull();
  });

  it('lists participants once each, creator first', () => {
    expect(participantsOf('a', ['b', 'a', 'c', 'b'])).toEqual(['a', 'b', 'c']);
    expect(participantsOf('a', [])).toEqual(['a']);
  });

  it('refuses an anchor that ends before it starts', () => {
    expect(anchorProblem({ blockId: 'b', startOffset: 3, endOffset: 3, selectedText: '' })).toBeNull();
    expect(anchorProblem({ blockId: 'b', startOffset: 4, endOffset: 3, selectedText: '' })?.field).toBe(
      'anchor.endOffset',
    );
  });
});
