/** Placeholder for a workspace's start page (issue 27). */
export function WorkspacePage() {
  return (
    <main>
      <h1>a workspace's start page</h1>
    </main>
  );
}
