import { useId } from 'react';

export type ThreadFilter = 'open' | 'resolved' | 'all';

const CHOICES: { value: ThreadFilter; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'all', label: 'All' },
];

/** Which threads the panel lists: native radio buttons, so arrow keys move between them. */
export function ThreadFilterControl({ value, onChange }: { value: ThreadFilter; onChange: (f: ThreadFilter) => void }) {
  const name = useId();
  return (
    <fieldset className="thread-filter">
      <legend>Show</legend>
      {CHOICES.map((choice) => (
        <label key={choice.value}>
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={value === choice.value}
            onChange={() => onChange(choice.value)}
          />
          {choice.label}
        </label>
      ))}
    </fieldset>
  );
}
