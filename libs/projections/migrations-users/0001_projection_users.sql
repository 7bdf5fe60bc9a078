-- Up Migration

-- The users projection (libs/auth users.ts): a copy of the workspace service's users, fed by
-- user.upserted, for the services that show user names. Named projection_users so that nobody
-- takes it for the owner's `users` table.
--
-- Events reach it out of order (a failed one is retried after later ones): each row keeps the
-- occurredAt of the event that wrote it (event_at) and takes only events at least as recent. Rows
-- written by a read-through or from the caller's identity have no event time and give way to any
-- event. The catalog has no user-removal event yet; when one comes, a removal stays as a row
-- (ordered by event_at like any other) so that a late user.upserted cannot bring the user back.
CREATE TABLE projection_users (
  id uuid PRIMARY KEY,
  idp_uid text,
  email text,
  name text NOT NULL DEFAULT '',
  avatar_url text,
  event_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The collab server names users by identity-provider uid.
CREATE INDEX projection_users_idp_uid_idx ON projection_users (idp_uid);

-- Down Migration
DROP TABLE projection_users;
