import type { McpKey } from '../../api/types';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** One key: its name, first characters, when made and last used, and Delete. */
export function McpKeyRow({ mcpKey, onDelete }: { mcpKey: McpKey; onDelete: (key: McpKey) => void }) {
  return (
    <tr>
      <td>{mcpKey.name}</td>
      <td>
        <code>{mcpKey.prefix}…</code>
      </td>
      <td>{dateFormat.format(new Date(mcpKey.createdAt))}</td>
      <td>{mcpKey.lastUsedAt ? dateFormat.format(new Date(mcpKey.lastUsedAt)) : 'Never'}</td>
      <td>
        <button type="button" aria-label={`Delete key ${mcpKey.name}`} onClick={() => onDelete(mcpKey)}>
          Delete
        </button>
      </td>
    </tr>
  );
}
