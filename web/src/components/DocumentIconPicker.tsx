import type { FormEvent } from 'react';
import type { WikiDocument } from '../api/types';
import { TogglePanel } from './TogglePanel';
import { useFieldPanel } from './useFieldPanel';

const SUGGESTIONS = ['📄', '📘', '📝', '📌', '💡', '✅', '🚀', '🧭', '📊', '🛠️', '🎯', '🗂️'];
const ICON_MAX = 50;

/** The document's icon, and for editors a panel to set it (any emoji or short text) or remove it. */
export function DocumentIconPicker({ document, canEdit }: { document: WikiDocument; canEdit: boolean }) {
  const { opened, open, value, setValue, error, busy, save } = useFieldPanel(document, 'icon', 'icon');
  const icon = document.icon || '';

  if (!canEdit) {
    return icon ? (
      <span className="document-icon" aria-hidden="true">
        {icon}
      </span>
    ) : null;
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(value.trim() || null);
  };

  return (
    <TogglePanel
      buttonText={icon || 'Add icon'}
      buttonLabel={icon ? `Change icon (${icon})` : undefined}
      buttonClassName={icon ? 'document-icon icon-button' : 'subtle-button'}
      panelLabel="Document icon"
      opened={opened}
      onOpenChange={open}
    >
      <form onSubmit={submit} className="stack-form">
        <label>
          Icon
          <input type="text" value={value} maxLength={ICON_MAX} onChange={(e) => setValue(e.target.value)} />
        </label>
        <fieldset className="icon-suggestions">
          <legend>Suggested icons</legend>
          {SUGGESTIONS.map((emoji) => (
            <button key={emoji} type="button" aria-label={`Use ${emoji}`} disabled={busy} onClick={() => save(emoji)}>
              {emoji}
            </button>
          ))}
        </fieldset>
        {error && <p role="alert">{error}</p>}
        <div className="form-actions">
          <button type="submit" disabled={busy}>
            Save icon
          </button>
          {icon && (
            <button type="button" disabled={busy} onClick={() => save(null)}>
              Remove icon
            </button>
          )}
        </div>
      </form>
    </TogglePanel>
  );
}
