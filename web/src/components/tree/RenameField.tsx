import { useEffect, useRef } from 'react';

/** Inline rename: Enter saves, Escape cancels, leaving the field saves. */
export function RenameField({
  initial,
  onDone,
}: {
  initial: string;
  onDone: (title: string | null, byKey: boolean) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    // After the actions menu has handed focus back to its button (Mantine does so 10 ms after closing).
    const timer = setTimeout(() => {
      input.current?.focus();
      input.current?.select();
    }, 30);
    return () => clearTimeout(timer);
  }, []);
  const finish = (title: string | null, byKey: boolean) => {
    if (done.current) return;
    done.current = true;
    onDone(title, byKey);
  };
  return (
    <input
      ref={input}
      className="tree-rename"
      aria-label="Rename document"
      defaultValue={initial}
      maxLength={500}
      onKeyDown={(event) => {
        if (event.key === 'Enter') finish(event.currentTarget.value, true);
        else if (event.key === 'Escape') finish(null, true);
        else return;
        event.preventDefault();
        event.stopPropagation();
      }}
      onBlur={(event) => finish(event.currentTarget.value, false)}
      onClick={(event) => event.stopPropagation()}
    />
  );
}
