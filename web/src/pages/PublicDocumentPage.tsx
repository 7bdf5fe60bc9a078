import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Link, useParams } from 'react-router';
import { parseBlocks } from '../api/blocks';
import { ApiError } from '../api/client';
import { publicAncestorsQuery, publicChildrenQuery, publicDocumentQuery } from '../api/queries';
import { useApi } from '../auth/AuthContext';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { CoverImage } from '../components/CoverImage';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { NotFoundPage } from './NotFoundPage';

const ReadOnlyContent = lazy(() => import('../editor/ReadOnlyContent'));

/** `/p/<id>`: a published document for anyone, no sign-in; its published children below it. */
export function PublicDocumentPage() {
  const { documentId = '' } = useParams();
  const api = useApi();
  const document = useQuery(publicDocumentQuery(api, documentId));
  const children = useQuery({ ...publicChildrenQuery(api, documentId), enabled: document.isSuccess });
  const ancestors = useQuery({ ...publicAncestorsQuery(api, documentId), enabled: document.isSuccess });
  const blocks = useMemo(() => parseBlocks(document.data?.content), [document.data?.content]);

  const title = document.data?.title;
  useEffect(() => {
    if (title !== undefined) window.document.title = title || 'Untitled';
  }, [title]);

  if (document.error instanceof ApiError && document.error.status === 404) return <NotFoundPage what="page" />;
  if (document.error) {
    return (
      <main className="public-page">
        <p role="alert">This page could not be loaded: {document.error.message}</p>
      </main>
    );
  }
  if (!document.data) return <p className="loading">Loading…</p>;

  const doc = document.data;
  return (
    <main className="public-page">
      <Breadcrumbs crumbs={ancestors.data ?? []} hrefFor={(id) => `/p/${id}`} />
      {doc.coverImageUrl && <CoverImage url={doc.coverImageUrl} />}
      <h1 className="public-title">
        {doc.icon && (
          <span className="document-icon" aria-hidden="true">
            {doc.icon}
          </span>
        )}
        {doc.title || 'Untitled'}
      </h1>
      {blocks.length === 0 ? (
        <p className="quiet">This page is empty.</p>
      ) : (
        <ErrorBoundary fallback={() => <p role="alert">The content of this page cannot be shown.</p>}>
          <Suspense fallback={<p className="loading">Loading the content…</p>}>
            <ReadOnlyContent blocks={blocks} />
          </Suspense>
        </ErrorBoundary>
      )}
      {children.data && children.data.length > 0 && (
        <nav aria-label="Pages inside" className="public-children">
          <h2>Pages inside</h2>
          <ul>
            {children.data.map((child) => (
              <li key={child.id}>
                <Link to={`/p/${child.id}`}>
                  {child.icon && <span aria-hidden="true">{child.icon} </span>}
                  {child.title || 'Untitled'}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </main>
  );
}
