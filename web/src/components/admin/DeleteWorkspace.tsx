import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { workspaceKeys } from '../../api/queries';
import type { Workspace } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { type Party, whyNotDeleteWorkspace } from '../../members/rules';

/**
 * Deleting the workspace (OWNER only, irreversible): a dialog where the person types the
 * workspace's name before "Delete forever" does anything.
 */
export function DeleteWorkspace({ workspace, actor }: { workspace: Workspace; actor: Party }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const reasonId = useId();
  const [opened, setOpened] = useState(false);
  const [typed, setTyped] = useState('');
  const reason = whyNotDeleteWorkspace(actor);
  const matches = typed.trim() === workspace.name.trim();

  const remove = useMutation({
    mutationFn: () => api.delete(`/workspaces/${workspace.id}`),
    onSuccess: async () => {
      setOpened(false);
      queryClient.removeQueries({ queryKey: workspaceKeys.detail(workspace.id) });
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      navigate('/');
    },
  });

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) element.showModal();
    if (!opened && element.open) element.close();
  }, [opened]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (matches) remove.mutate();
  };

  return (
    <div className="danger-zone">
      <p>Deleting removes the workspace and everything in it for good.</p>
      <button
        type="button"
        className="danger-action"
        disabled={reason !== null}
        aria-describedby={reason ? reasonId : undefined}
        onClick={() => {
          setTyped('');
          remove.reset();
          setOpened(true);
        }}
      >
        Delete workspace
      </button>
      {reason && (
        <p id={reasonId} className="reason">
          {reason}
        </p>
      )}
      <dialog
        ref={dialog}
        role="alertdialog"
        aria-labelledby={headingId}
        className="dialog"
        onClose={() => setOpened(false)}
      >
        <h2 id={headingId} className="dialog-title">
          Delete {workspace.name} forever?
        </h2>
        <form onSubmit={submit} className="stack-form">
          <p>
            Its documents, their history, comments, files, members and invitations are deleted. This cannot be undone.
          </p>
          <label>
            Type the workspace's name, {workspace.name}, to confirm
            <input
              type="text"
              autoComplete="off"
              value={typed}
              onChange={(event) => setTyped(event.currentTarget.value)}
            />
          </label>
          {remove.error && <p role="alert">{remove.error.message}</p>}
          <div className="form-actions dialog-actions">
            <button type="button" onClick={() => setOpened(false)}>
              Cancel
            </button>
            <button type="submit" className="danger-action" disabled={!matches || remove.isPending}>
              Delete forever
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
