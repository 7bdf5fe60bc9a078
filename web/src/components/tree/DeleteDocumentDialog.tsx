import { Button, Group, Modal } from '@mantine/core';
import { displayTitle, type TreeRow } from './tree-rows';

/**
 * Confirms a delete (spec 4.4): alone, its children become top-level documents; with children,
 * everything below it goes too. Neither can be undone, unlike archiving.
 */
export function DeleteDocumentDialog({
  row,
  withChildren,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  row: TreeRow;
  withChildren: boolean;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const title = displayTitle(row.item);
  return (
    <Modal
      opened
      onClose={onClose}
      returnFocus={false}
      title={`Delete “${title}”?`}
      closeButtonProps={{ 'aria-label': 'Close' }}
      centered
    >
      <p>
        {withChildren
          ? `“${title}” and every document below it will be deleted for good.`
          : row.item.hasChildren
            ? `“${title}” will be deleted for good; the documents directly below it become top-level documents.`
            : `“${title}” will be deleted for good.`}{' '}
        To keep it out of the way without losing it, archive it instead.
      </p>
      {error && <p role="alert">{error}</p>}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-autofocus>
          Cancel
        </Button>
        <Button color="red.9" onClick={onConfirm} loading={pending}>
          {withChildren ? 'Delete with children' : 'Delete'}
        </Button>
      </Group>
    </Modal>
  );
}
