import './MenuButton.css';
import { type FocusEvent, type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';

export interface MenuItem {
  key: string;
  label: string;
  /** Shown and reachable but not chosen (the menu says why elsewhere). */
  disabled?: boolean;
}

interface Props {
  /** The button's text, which is also its accessible name and the menu's. */
  label: ReactNode;
  items: MenuItem[];
  onSelect: (key: string) => void;
  className?: string;
}

/**
 * A button that opens a `menu` of `menuitem`s (the WAI-ARIA menu button pattern): Enter, Space or
 * ArrowDown open it on the first item, ArrowUp on the last; arrows, Home and End move, a letter
 * jumps to the item it starts; Escape closes it and gives focus back to the button, as does a choice.
 * Written here rather than Mantine's Menu, whose Popover would grow the app shell (docs/DECISIONS.md).
 */
export function MenuButton({ label, items, onSelect, className }: Props) {
  const [open, setOpen] = useState(false);
  const [focusIndex, setFocusIndex] = useState(0);
  const buttonId = useId();
  const menuId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open) menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[focusIndex]?.focus();
  }, [open, focusIndex]);

  const openAt = (index: number) => {
    setFocusIndex(index);
    setOpen(true);
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  // Focus went somewhere outside the button and its menu (a click elsewhere, Tab): close.
  const onBlur = (event: FocusEvent) => {
    if (open && !area.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
  };
  const choose = (item: MenuItem) => {
    if (item.disabled) return;
    close(true);
    onSelect(item.key);
  };

  const onButtonKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(event.key === 'ArrowDown' ? 0 : items.length - 1);
    }
  };

  const onMenuKeyDown = (event: KeyboardEvent) => {
    const last = items.length - 1;
    const move = (index: number) => {
      event.preventDefault();
      setFocusIndex(index);
    };
    switch (event.key) {
      case 'ArrowDown':
        return move(focusIndex >= last ? 0 : focusIndex + 1);
      case 'ArrowUp':
        return move(focusIndex <= 0 ? last : focusIndex - 1);
      case 'Home':
        return move(0);
      case 'End':
        return move(last);
      case 'Escape':
        event.preventDefault();
        event.stopPropagation();
        return close(true);
      case 'Tab':
        return close(false);
      default: {
        if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
        const letter = event.key.toLowerCase();
        const order = [...items.slice(focusIndex + 1), ...items.slice(0, focusIndex + 1)];
        const next = order.find((item) => item.label.toLowerCase().startsWith(letter));
        if (next) move(items.indexOf(next));
      }
    }
  };

  return (
    <div ref={area} className={`menu-button ${className ?? ''}`}>
      <button
        ref={button}
        id={buttonId}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={onButtonKeyDown}
        onBlur={onBlur}
      >
        {label}
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-labelledby={buttonId}
          className="menu"
          onKeyDown={onMenuKeyDown}
          onBlur={onBlur}
        >
          {items.map((item, index) => (
            <button
              key={item.key}
              type="button"
              role="menuitem"
              tabIndex={-1}
              aria-disabled={item.disabled || undefined}
              onClick={() => choose(item)}
              // Keeps focus in the menu on a click in browsers that do not focus buttons on click.
              onMouseDown={(event) => event.preventDefault()}
              onMouseEnter={() => setFocusIndex(index)}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
