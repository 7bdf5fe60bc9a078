-- Up Migration

-- E-mail (ARCHITECTURE 5.18). Each user's choices per NotificationType and locale arrive with
-- user.preferences_changed, under the same event_at rule as `enabled`. NULL: the defaults.
ALTER TABLE notification_preferences ADD COLUMN email_notifications jsonb;
ALTER TABLE notification_preferences ADD COLUMN locale text;

-- The messages to send, written in the transaction that decided them (so a redelivered event or a
-- rolled-back one never makes a second or a stray one) and handed to the BullMQ queue from here.
-- key: what is sent (notification:<id>, invitation:<event id>, digest:<user>:<window>), unique, and
-- the queue's job id. sent_at is set once the server took the message (or it was dropped, see
-- outcome); rows not yet sent are queued again after a while, so a lost job loses no message.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  key text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('notification', 'invitation', 'digest')),
  user_id uuid,
  notification_id uuid REFERENCES notifications (id) ON DELETE CASCADE,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  queued_at timestamptz,
  sent_at timestamptz,
  outcome text
);
CREATE INDEX mail_outbox_unsent_idx ON mail_outbox (queued_at NULLS FIRST) WHERE sent_at IS NULL;

-- Notifications waiting for their recipient's next digest; digest_key names the digest that took
-- them. A deleted notification leaves its digest too.
CREATE TABLE mail_digest_items (
  notification_id uuid PRIMARY KEY REFERENCES notifications (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  digest_key text
);
CREATE INDEX mail_digest_items_pending_idx ON mail_digest_items (user_id, created_at) WHERE digest_key IS NULL;
CREATE INDEX mail_digest_items_digest_idx ON mail_digest_items (digest_key) WHERE digest_key IS NOT NULL;

-- Down Migration
DROP TABLE mail_digest_items;
DROP TABLE mail_outbox;
ALTER TABLE notification_preferences DROP COLUMN locale;
ALTER TABLE notification_preferences DROP COLUMN email_notifications;
