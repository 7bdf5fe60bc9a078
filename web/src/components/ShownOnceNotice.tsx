import { type ReactNode, useEffect, useRef } from 'react';
import { CopyButton } from './CopyButton';

interface ShownOnceNoticeProps {
  /** The heading's id (the section is labelled by it). */
  id: string;
  heading: ReactNode;
  /** Why it must be copied now, and what to do if it is lost. */
  warning: ReactNode;
  /** The read-only field's label (its accessible name). */
  label: string;
  value: string;
  /** The Copy button's accessible name, when "Copy" alone would not say what. */
  copyLabel?: string;
  onDone: () => void;
}

/** A secret the API answers only once (an MCP key, a webhook's signing secret): copy it now. */
export function ShownOnceNotice({ id, heading, warning, label, value, copyLabel, onDone }: ShownOnceNoticeProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  // Focus moves here from the form that gave way, so the secret is what is read out next.
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <section className="inline-panel key-notice" aria-labelledby={id}>
      <h3 id={id} ref={headingRef} tabIndex={-1}>
        {heading}
      </h3>
      <p className="warning">{warning}</p>
      <label className="key-field">
        {label}
        <input type="text" readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <div className="form-actions">
        <CopyButton text={value} label={copyLabel}>
          Copy
        </CopyButton>
      </div>
      <div>
        <button type="button" onClick={onDone}>
          Done, I have copied it
        </button>
      </div>
    </section>
  );
}
