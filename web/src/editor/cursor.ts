import { safeColor, textColorOn } from './person-color';

/**
 * Another person's caret with their name, built like BlockNote's own (its CSS classes) but with
 * the name as text and the colour checked: BlockNote's default writes the colour into a style
 * attribute as it came.
 */
export function renderCursor(user: { name: string; color: string }): HTMLElement {
  const color = safeColor(user.color);
  const base = document.createElement('span');
  base.className = 'bn-collaboration-cursor__base';
  const caret = document.createElement('span');
  caret.className = 'bn-collaboration-cursor__caret';
  caret.contentEditable = 'false';
  caret.style.backgroundColor = color;
  const label = document.createElement('span');
  label.className = 'bn-collaboration-cursor__label';
  label.style.backgroundColor = color;
  label.style.color = textColorOn(color);
  label.textContent = user.name;
  caret.append(label);
  // Word joiners keep the caret from breaking the line it sits in.
  base.append('\u2060', caret, '\u2060');
  return base;
}
