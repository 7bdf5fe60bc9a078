// Cursor and presence colours. Awareness states come from other people's browsers, so a colour
// is only ever used when it is a plain hex colour (no CSS smuggled in through a style).

/** Dark enough that white text on them reads well (WCAG AA). */
const PALETTE = ['#b91c1c', '#c2410c', '#a16207', '#15803d', '#0f766e', '#1d4ed8', '#6d28d9', '#be185d'];
const FALLBACK = '#4b5563';

/** A stable colour for a person, from their id. */
export function colorFor(userId: string): string {
  let hash = 0;
  for (const char of userId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

export function safeColor(color: unknown): string {
  return typeof color === 'string' && /^#[0-9a-f]{6}$/i.test(color) ? color : FALLBACK;
}

/** Black or white, whichever reads better on `background` (a safe hex colour). */
export function textColorOn(background: string): string {
  const channel = (offset: number) => {
    const value = Number.parseInt(background.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.179 ? '#000000' : '#ffffff';
}
