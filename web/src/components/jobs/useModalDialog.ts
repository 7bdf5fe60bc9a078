import { type RefObject, useEffect, useRef } from 'react';

/**
 * Shows a native `<dialog>` as a modal while `opened`: the browser keeps focus inside, Escape
 * closes it (its `close` event) and focus goes back to what had it before.
 */
export function useModalDialog(opened: boolean): RefObject<HTMLDialogElement | null> {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) element.showModal();
    if (!opened && element.open) element.close();
  }, [opened]);
  return dialog;
}
