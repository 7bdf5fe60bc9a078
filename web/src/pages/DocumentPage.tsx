/** Placeholder for a document (issue 27). */
export function DocumentPage() {
  return (
    <main>
      <h1>a document</h1>
    </main>
  );
}
