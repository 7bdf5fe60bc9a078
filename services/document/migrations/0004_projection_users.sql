-- Up Migration

-- The users projection is libs/auth's now (usersProjectionMigrations, applied before this set):
-- table projection_users, with the same rules. The rows move there with the event time each has,
-- and the service's own copy goes.
INSERT INTO projection_users (id, idp_uid, email, name, avatar_url, event_at, updated_at)
SELECT id, idp_uid, email, name, avatar_url, event_at, updated_at FROM users
ON CONFLICT (id) DO NOTHING;

DROP TABLE users;

-- Down Migration
CREATE TABLE users (
  id uuid PRIMARY KEY,
  idp_uid text,
  email text,
  name text NOT NULL DEFAULT '',
  avatar_url text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  event_at timestamptz
);
CREATE INDEX users_idp_uid_idx ON users (idp_uid);
INSERT INTO users (id, idp_uid, email, name, avatar_url, updated_at, event_at)
SELECT id, idp_uid, email, name, avatar_url, updated_at, event_at FROM projection_users;
