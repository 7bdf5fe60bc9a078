import { type ReactNode, useEffect, useId, useRef } from 'react';

interface Props {
  opened: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/**
 * The shell of the export and import dialogs: a native `<dialog>` shown as a modal while `opened`
 * (the browser keeps focus inside, Escape closes it through its `close` event and focus goes back
 * to what had it before), named by its heading, with a Close button.
 */
export function JobDialog({ opened, title, onClose, children }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) element.showModal();
    if (!opened && element.open) element.close();
  }, [opened]);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={headingId}
      className="dialog"
      onClose={onClose}
      // Escape belongs to this dialog: panels around it must not close as well.
      onKeyDown={(event) => event.key === 'Escape' && event.stopPropagation()}
    >
      <div className="dialog-heading">
        <h2 id={headingId}>{title}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {children}
    </dialog>
  );
}
