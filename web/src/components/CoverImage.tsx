import { useState } from 'react';

/** A document's cover: decorative (empty alt), and gone quietly when the address does not load. */
export function CoverImage({ url }: { url: string }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  if (failedUrl === url) return <p className="cover-missing">The cover image could not be loaded.</p>;
  return <img className="document-cover" src={url} alt="" onError={() => setFailedUrl(url)} />;
}
