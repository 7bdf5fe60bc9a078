-- Up Migration

-- The users projection is libs/auth's now (usersProjectionMigrations, applied before this set):
-- table projection_users, which keeps the time of the event that wrote each row and ignores older
-- ones. The rows move there without an event time (this table kept none), so any event replaces
-- them, and the service's own copy goes.
INSERT INTO projection_users (id, idp_uid, email, name, avatar_url, updated_at)
SELECT id, idp_uid, email, name, avatar_url, updated_at FROM user_projection
ON CONFLICT (id) DO NOTHING;

DROP TABLE user_projection;

-- Down Migration
CREATE TABLE user_projection (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text,
  avatar_url text,
  idp_uid text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO user_projection (id, name, email, avatar_url, idp_uid, updated_at)
SELECT id, name, email, avatar_url, idp_uid, updated_at FROM projection_users;
