/** Placeholder for a published document (issue 27). */
export function PublicDocumentPage() {
  return (
    <main>
      <h1>a published document</h1>
    </main>
  );
}
