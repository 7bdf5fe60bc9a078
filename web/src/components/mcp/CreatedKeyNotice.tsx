import { useEffect, useRef } from 'react';
import type { CreatedMcpKey } from '../../api/types';
import { CopyButton } from '../CopyButton';

/** The new key, this once: a copy button and the warning that it cannot be shown again. */
export function CreatedKeyNotice({ created, onDone }: { created: CreatedMcpKey; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus moves here from the form that disappeared, so the key is what is read out next.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="inline-panel key-notice" aria-labelledby="created-key-heading">
      <h3 id="created-key-heading" ref={heading} tabIndex={-1}>
        Your new key “{created.name}”
      </h3>
      <p className="warning">
        <strong>Copy it now: it is shown only this once.</strong> Only a fingerprint of it is kept, so nobody can show
        it again; if it is lost, delete it and make a new one.
      </p>
      <label className="key-field">
        New key
        <input type="text" readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <div className="form-actions">
        <CopyButton text={created.key}>Copy</CopyButton>
      </div>
      <div>
        <button type="button" onClick={onDone}>
          Done, I have copied it
        </button>
      </div>
    </section>
  );
}
