import type { CreatedMcpKey } from '../../api/types';
import { ShownOnceNotice } from '../ShownOnceNotice';

/** The new key, this once: a copy button and the warning that it cannot be shown again. */
export function CreatedKeyNotice({ created, onDone }: { created: CreatedMcpKey; onDone: () => void }) {
  return (
    <ShownOnceNotice
      id="created-key-heading"
      heading={<>Your new key “{created.name}”</>}
      warning={
        <>
          <strong>Copy it now: it is shown only this once.</strong> Only a fingerprint of it is kept, so nobody can show
          it again; if it is lost, delete it and make a new one.
        </>
      }
      label="New key"
      value={created.key}
      onDone={onDone}
    />
  );
}
