/** Placeholder for workspace settings (issue 27). */
export function WorkspaceSettingsPage() {
  return (
    <main>
      <h1>workspace settings</h1>
    </main>
  );
}
