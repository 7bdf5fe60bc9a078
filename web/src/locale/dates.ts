/** The languages and regions the settings offer: Intl formats dates and numbers in each of them. */
export const LOCALES: { value: string; label: string }[] = [
  { value: 'en', label: 'English (United States)' },
  { value: 'en-GB', label: 'English (United Kingdom)' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
  { value: 'es', label: 'Español' },
  { value: 'ja', label: '日本語' },
  { value: 'zh-CN', label: '中文（简体）' },
];

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * A date and time the way `locale` writes it (the browser's own when unset). A stored value Intl
 * does not know falls back to the browser's rather than breaking the page.
 */
export function formatDateTime(iso: string, locale?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const key = locale && Intl.DateTimeFormat.supportedLocalesOf(locale).length > 0 ? locale : '';
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(key || undefined, { dateStyle: 'medium', timeStyle: 'short' });
    formats.set(key, format);
  }
  return format.format(date);
}
