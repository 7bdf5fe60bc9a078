/** Placeholder for personal settings (issue 27). */
export function SettingsPage() {
  return (
    <main>
      <h1>personal settings</h1>
    </main>
  );
}
