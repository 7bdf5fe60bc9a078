/** Placeholder for the last workspace and document (issue 27). */
export function HomePage() {
  return (
    <main>
      <h1>the last workspace and document</h1>
    </main>
  );
}
