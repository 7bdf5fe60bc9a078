/**
 * Hands a blob to the browser as a download named `name` (an object URL and an `<a download>`):
 * files fetched with the person's token, which a plain link could not carry.
 */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the blob once the click is handled; the URL is no longer needed then.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
