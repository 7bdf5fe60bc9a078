-- Up Migration

-- Users who turned notifications off (user.preferences_changed); a user with no row gets them.
-- event_at: a late, older event does not undo a newer choice.
CREATE TABLE notification_preferences (
  user_id uuid PRIMARY KEY,
  enabled boolean NOT NULL,
  event_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE notification_preferences;
