-- Up Migration

-- The real-time stream (GET /notifications/stream) numbers each user's notifications: the SSE
-- `id:` and what Last-Event-ID resumes from. One counter row per user, bumped in the transaction
-- that makes (or refreshes) a notification: its row lock holds a second writer for the same user
-- until the first commits, so a user's numbers become visible in order and a reader that has seen
-- number n has seen every visible one below it. Numbers are never reused (a deleted latest
-- notification does not give its number to the next one).
CREATE TABLE notification_streams (
  user_id uuid PRIMARY KEY,
  last_seq bigint NOT NULL
);

-- Rows from before the stream keep 0: no client can have resumed from them.
ALTER TABLE notifications ADD COLUMN seq bigint NOT NULL DEFAULT 0;
CREATE INDEX notifications_user_seq_idx ON notifications (user_id, seq);

-- Down Migration
DROP INDEX notifications_user_seq_idx;
ALTER TABLE notifications DROP COLUMN seq;
DROP TABLE notification_streams;
