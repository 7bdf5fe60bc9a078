import { type Ref, useId } from 'react';

interface Props {
  ref?: Ref<HTMLButtonElement>;
  expanded: boolean;
  panelId: string;
  /** Open threads; undefined until known. */
  openCount: number | undefined;
  onClick: () => void;
}

/**
 * The button "Comments" (its name is just that, as ARCHITECTURE 5.17 names it), with the number of
 * open threads shown beside the word and told as its description.
 */
export function CommentsButton({ ref, expanded, panelId, openCount, onClick }: Props) {
  const countId = useId();
  const described = openCount !== undefined;
  return (
    <button
      ref={ref}
      type="button"
      className="comments-button"
      aria-expanded={expanded}
      aria-controls={expanded ? panelId : undefined}
      aria-describedby={described ? countId : undefined}
      onClick={onClick}
    >
      Comments
      {described && (
        <>
          <span className="comment-count" aria-hidden="true">
            {openCount}
          </span>
          <span id={countId} hidden>
            {openCount === 1 ? '1 open thread' : `${openCount} open threads`}
          </span>
        </>
      )}
    </button>
  );
}
