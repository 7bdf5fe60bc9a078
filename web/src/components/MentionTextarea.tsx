import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, type RefObject, useId, useLayoutEffect, useRef, useState } from 'react';
import { memberSearchQuery } from '../api/queries';
import type { MemberMatch } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { type Mention, mentionQueryAt, tokenName } from '../comments/mentions';

/** What a comment box holds: the text as shown (`@Name`) and the people picked for those names. */
export interface CommentDraft {
  text: string;
  mentions: Mention[];
}

export const EMPTY_DRAFT: CommentDraft = { text: '', mentions: [] };

/** The server's limit on a comment. */
const CONTENT_MAX = 10_000;

interface Props {
  label: string;
  workspaceId: string;
  draft: CommentDraft;
  onChange: (draft: CommentDraft) => void;
  /** Ctrl/⌘-Enter. */
  onSubmit: () => void;
  /** Escape (when no list of people is open). */
  onCancel?: () => void;
  textareaRef?: RefObject<HTMLTextAreaElement | null>;
  disabled?: boolean;
}

/**
 * A comment box in which `@` offers the workspace's members (asked as the person types, a moment
 * after they pause): arrows choose, Enter or Tab inserts `@Name`, Escape closes the list. The box is
 * a textbox that owns the list (aria-autocomplete, aria-activedescendant), focus stays in it.
 */
export function MentionTextarea({
  label,
  workspaceId,
  draft,
  onChange,
  onSubmit,
  onCancel,
  textareaRef,
  disabled,
}: Props) {
  const api = useApi();
  const ids = { box: useId(), list: useId(), hint: useId() };
  const ownRef = useRef<HTMLTextAreaElement>(null);
  const box = textareaRef ?? ownRef;
  const [typing, setTyping] = useState<{ start: number; query: string } | null>(null);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const caretAfter = useRef<number | null>(null);
  const [query] = useDebouncedValue(typing?.query ?? null, 200);

  const wanted = typing !== null && dismissedAt !== typing.start && query !== null;
  const search = useQuery({ ...memberSearchQuery(api, workspaceId, query ?? ''), enabled: wanted });
  const matches: MemberMatch[] = wanted && search.data ? search.data : [];
  const listOpen = matches.length > 0;
  const current = Math.min(active, Math.max(matches.length - 1, 0));

  useLayoutEffect(() => {
    if (caretAfter.current === null || !box.current) return;
    box.current.setSelectionRange(caretAfter.current, caretAfter.current);
    caretAfter.current = null;
  });

  const follow = (text: string, caret: number) => {
    const next = mentionQueryAt(text, caret);
    setTyping(next);
    if (!next) setDismissedAt(null);
    if (next?.start !== typing?.start) setActive(0);
  };

  const pick = (member: MemberMatch) => {
    if (!typing || !box.current) return;
    const name = tokenName(member.name);
    const caret = box.current.selectionStart;
    const inserted = `@${name} `;
    const text = draft.text.slice(0, typing.start) + inserted + draft.text.slice(caret);
    const known = draft.mentions.some((m) => m.userId === member.userId && m.name === name);
    onChange({ text, mentions: known ? draft.mentions : [...draft.mentions, { userId: member.userId, name }] });
    caretAfter.current = typing.start + inserted.length;
    // The caret now follows `@Name `, which reads as a query again: that one is settled.
    setDismissedAt(typing.start);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onSubmit();
      return;
    }
    if (listOpen) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((current + step + matches.length) % matches.length);
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        pick(matches[current]);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        setDismissedAt(typing?.start ?? null);
        return;
      }
    }
    if (event.key === 'Escape' && onCancel) {
      event.stopPropagation();
      onCancel();
    }
  };

  const optionId = (index: number) => `${ids.list}-${index}`;
  const status = !wanted
    ? ''
    : search.isError
      ? `People could not be looked up: ${search.error.message}`
      : search.isSuccess
        ? matches.length === 0
          ? `No member matches “${query}”.`
          : `${matches.length} ${matches.length === 1 ? 'person matches' : 'people match'}; arrow keys choose, Enter inserts.`
        : '';

  return (
    <div className="mention-box">
      <label htmlFor={ids.box}>{label}</label>
      <textarea
        ref={box}
        id={ids.box}
        value={draft.text}
        rows={3}
        maxLength={CONTENT_MAX}
        disabled={disabled}
        aria-describedby={ids.hint}
        aria-autocomplete="list"
        aria-controls={listOpen ? ids.list : undefined}
        aria-activedescendant={listOpen ? optionId(current) : undefined}
        onChange={(event) => {
          onChange({ ...draft, text: event.target.value });
          follow(event.target.value, event.target.selectionStart);
        }}
        onSelect={(event) => follow(event.currentTarget.value, event.currentTarget.selectionStart)}
        onBlur={() => setTyping(null)}
        onKeyDown={onKeyDown}
      />
      <p id={ids.hint} className="quiet mention-hint">
        Type @ to mention someone; Ctrl+Enter sends.
      </p>
      {listOpen && (
        <div id={ids.list} role="listbox" aria-label="People to mention" className="mention-list">
          {matches.map((member, index) => (
            <div
              key={member.userId}
              id={optionId(index)}
              role="option"
              // Focus stays in the textbox (aria-activedescendant); -1 only makes the option focusable at all.
              tabIndex={-1}
              aria-selected={index === current}
              // Keeps focus (and the caret) in the box while the mouse picks.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(member);
              }}
            >
              <span className="mention-name">{member.name}</span> <span className="quiet">{member.email}</span>
            </div>
          ))}
        </div>
      )}
      <p role="status" className="visually-hidden">
        {status}
      </p>
    </div>
  );
}
