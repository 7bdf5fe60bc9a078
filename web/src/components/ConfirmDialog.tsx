import { type ReactNode, useEffect, useId, useRef } from 'react';

interface Props {
  opened: boolean;
  title: string;
  children: ReactNode;
  /** The confirming button's text (its accessible name). */
  confirmLabel: string;
  busy?: boolean;
  /** Shown in an alert inside the dialog when the action failed. */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before an action that changes something for everyone: a native modal `alertdialog`
 * (focus kept inside, Escape cancels, focus goes back to what opened it). Cancel is focused first.
 */
export function ConfirmDialog({ opened, title, children, confirmLabel, busy, error, onConfirm, onCancel }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const headingId = useId();
  const textId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) {
      element.showModal();
      cancel.current?.focus();
    }
    if (!opened && element.open) element.close();
  }, [opened]);

  return (
    <dialog
      ref={dialog}
      role="alertdialog"
      aria-labelledby={headingId}
      aria-describedby={textId}
      className="dialog"
      onClose={onCancel}
      // Escape belongs to this dialog: panels around it must not close as well.
      onKeyDown={(event) => event.key === 'Escape' && event.stopPropagation()}
    >
      <h2 id={headingId} className="dialog-title">
        {title}
      </h2>
      <div id={textId}>{children}</div>
      {error && <p role="alert">{error}</p>}
      <div className="form-actions dialog-actions">
        <button ref={cancel} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
