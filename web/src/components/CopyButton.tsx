import { useState } from 'react';

interface Props {
  /** What goes to the clipboard. */
  text: string;
  /** The button's visible text. */
  children: string;
  /** A fuller accessible name when several such buttons share a page (must start with the visible text). */
  label?: string;
}

/** Copies `text` to the clipboard and says so (or how to copy by hand) in a polite status next to it. */
export function CopyButton({ text, children, label }: Props) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      setSaid('Copying is not allowed here: select the text and copy it yourself.');
    }
  };
  return (
    <>
      <button type="button" aria-label={label} onClick={copy}>
        {children}
      </button>
      <span role="status" className="quiet">
        {said}
      </span>
    </>
  );
}
