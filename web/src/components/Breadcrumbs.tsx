import { Link } from 'react-router';

export interface Crumb {
  id: string;
  title: string;
}

/**
 * A `navigation` "Breadcrumbs": the documents above this one as links, then this one as the
 * current page. `hrefFor` says where a document opens (the workspace route or the public one).
 */
export function Breadcrumbs({ crumbs, hrefFor }: { crumbs: Crumb[]; hrefFor: (id: string) => string }) {
  // The document alone is no trail.
  if (crumbs.length < 2) return null;
  const last = crumbs.length - 1;
  return (
    <nav aria-label="Breadcrumbs" className="breadcrumbs">
      <ol>
        {crumbs.map((crumb, index) => (
          <li key={crumb.id}>
            {index === last ? (
              <span aria-current="page">{crumb.title || 'Untitled'}</span>
            ) : (
              <Link to={hrefFor(crumb.id)}>{crumb.title || 'Untitled'}</Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
