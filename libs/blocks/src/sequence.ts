/**
 * Positions (indexes into `values`) of one longest strictly increasing subsequence, in O(n log n)
 * (patience sorting). Used to tell which shared blocks kept their order: the others moved.
 */
export function longestIncreasing(values: readonly number[]): Set<number> {
  // tails[k]: the index of the smallest last value of an increasing run of length k + 1.
  const tails: number[] = [];
  const previous: number[] = [];
  const valueAt = (index: number | undefined) => values[index ?? -1] ?? Number.NaN;
  for (const [i, value] of values.entries()) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (valueAt(tails[mid]) < value) low = mid + 1;
      else high = mid;
    }
    previous[i] = low > 0 ? (tails[low - 1] ?? -1) : -1;
    tails[low] = i;
  }
  const kept = new Set<number>();
  for (let i = tails[tails.length - 1] ?? -1; i !== -1; i = previous[i] ?? -1) kept.add(i);
  return kept;
}
