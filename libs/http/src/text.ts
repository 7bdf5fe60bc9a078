/**
 * `value` cut to at most `max` characters, counted as Unicode code points as PostgreSQL counts
 * them, never in the middle of a surrogate pair (a plain .slice() can leave half an emoji).
 */
export function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  let out = '';
  let count = 0;
  for (const char of value) {
    if (count === max) break;
    out += char;
    count += 1;
  }
  return out;
}
