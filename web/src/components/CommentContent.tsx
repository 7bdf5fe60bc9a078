import { segmentsOf } from '../comments/mentions';

/** A comment's text with its mentions shown as names; all of it is text, none of it HTML. */
export function CommentContent({ content }: { content: string }) {
  return (
    <p className="comment-content">
      {segmentsOf(content).map((segment, index) =>
        segment.kind === 'text' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the segments of one text, in a fixed order
          <span key={index}>{segment.text}</span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <span key={index} className="mention" data-user-id={segment.userId}>
            @{segment.name}
          </span>
        ),
      )}
    </p>
  );
}
