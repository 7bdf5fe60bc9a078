import { type RefObject, useEffect } from 'react';

/**
 * BlockNote marks the editable element `aria-expanded` while its "/" menu is open and `false` after,
 * as if it were a combobox; our editor is a `textbox` (multi-line, named), where aria-expanded is not
 * allowed (axe: critical). The attribute is taken off as soon as it appears; the menu keeps its own
 * `aria-controls` and `aria-activedescendant`, which a textbox may carry.
 */
export function useTextboxAria(container: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const strip = () => {
      for (const element of root.querySelectorAll('[contenteditable][aria-expanded]')) {
        element.removeAttribute('aria-expanded');
      }
    };
    strip();
    const observer = new MutationObserver(strip);
    observer.observe(root, { subtree: true, attributes: true, attributeFilter: ['aria-expanded'] });
    return () => observer.disconnect();
  }, [container]);
}
