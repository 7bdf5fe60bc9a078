import { Link } from 'react-router';

export function NotFoundPage({ what = 'page' }: { what?: string }) {
  return (
    <main className="centered-page">
      <h1>Not found</h1>
      <p>This {what} does not exist, or you do not have access to it.</p>
      <Link to="/">Go to your wiki</Link>
    </main>
  );
}
