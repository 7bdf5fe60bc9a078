/** Placeholder for an invitation (issue 27). */
export function InvitePage() {
  return (
    <main>
      <h1>an invitation</h1>
    </main>
  );
}
