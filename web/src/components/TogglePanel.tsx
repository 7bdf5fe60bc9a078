import { type ReactNode, useEffect, useId, useRef } from 'react';

interface Props {
  /** What the button shows; `buttonLabel` names it when that is not text (an emoji). */
  buttonText: ReactNode;
  buttonLabel?: string;
  buttonClassName?: string;
  /** The panel's legend (it is a `group` of that name). */
  panelLabel: string;
  opened: boolean;
  onOpenChange: (opened: boolean) => void;
  children: ReactNode;
}

/**
 * A button that shows and hides a small panel below it (the disclosure pattern): focus moves into
 * the panel when it opens, Escape closes it and gives focus back to the button.
 */
export function TogglePanel({
  buttonText,
  buttonLabel,
  buttonClassName,
  panelLabel,
  opened,
  onOpenChange,
  children,
}: Props) {
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLFieldSetElement>(null);

  useEffect(() => {
    if (opened) panel.current?.querySelector<HTMLElement>('input, button')?.focus();
  }, [opened]);

  return (
    <div className="toggle-panel">
      <button
        ref={button}
        type="button"
        className={buttonClassName}
        aria-label={buttonLabel}
        aria-expanded={opened}
        aria-controls={opened ? panelId : undefined}
        onClick={() => onOpenChange(!opened)}
      >
        {buttonText}
      </button>
      {opened && (
        <fieldset
          ref={panel}
          id={panelId}
          className="toggle-panel-body"
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.stopPropagation();
            onOpenChange(false);
            button.current?.focus();
          }}
        >
          <legend>{panelLabel}</legend>
          {children}
        </fieldset>
      )}
    </div>
  );
}
