import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalescedKick } from './relay-kick.js';

describe('coalescedKick', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('wakes the relay at once for a lone write, and at most once per interval under load', () => {
    const kick = vi.fn();
    const wake = coalescedKick(kick, 20);
    wake();
    vi.advanceTimersByTime(0);
    expect(kick).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i++) wake();
    vi.advanceTimersByTime(19);
    expect(kick).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(kick).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(100);
    expect(kick).toHaveBeenCalledTimes(2);
    wake();
    vi.advanceTimersByTime(0);
    expect(kick).toHaveBeenCalledTimes(3);
  });
});
