import type { ProjectedUser, UsersProjection } from '@wiki/projections';
import type { RevisionRow, RevisionSummaryRow } from '../db/revisions.js';
import type { UserRef } from './documents.js';

/** Revision rows → RevisionSummary / Revision (ARCHITECTURE 5.16). */

type Users = Pick<UsersProjection, 'resolveMany'>;

/**
 * Every user the rows name, looked up once (the projection, then the workspace service for the
 * ones it lacks); a user nobody knows is shown by id without a name, as on documents.
 */
async function namesOf(users: Users, rows: readonly RevisionSummaryRow[], requestId?: string) {
  const known = await users.resolveMany(
    rows.flatMap((r) => [r.createdBy, ...r.contributors]),
    requestId,
  );
  return (id: string): UserRef => {
    const user: ProjectedUser | undefined = known.get(id);
    return user ? { id, name: user.name, avatarUrl: user.avatarUrl } : { id, name: '', avatarUrl: null };
  };
}

function summary(row: RevisionSummaryRow, ref: (id: string) => UserRef) {
  return {
    id: row.id,
    documentId: row.documentId,
    revision: row.revision,
    title: row.title,
    name: row.name,
    source: row.source,
    createdAt: row.createdAt,
    createdBy: ref(row.createdBy),
    contributors: row.contributors.map(ref),
    wordCount: row.wordCount,
  };
}

/** RevisionSummary of each row, in their order. */
export async function presentRevisionSummaries(users: Users, rows: readonly RevisionSummaryRow[], requestId?: string) {
  const ref = await namesOf(users, rows, requestId);
  return rows.map((row) => summary(row, ref));
}

/** Revision: the summary and the state the row holds. */
export async function presentRevision(users: Users, row: RevisionRow, requestId?: string) {
  const ref = await namesOf(users, [row], requestId);
  return { ...summary(row, ref), content: row.content, icon: row.icon, coverImageUrl: row.coverImageUrl };
}
