-- Up Migration

-- The person's own choices of how each notification type is e-mailed (ARCHITECTURE 5.18), a map
-- from NotificationType to off | instant | digest. Only what they chose is stored: a type they
-- never set follows the default of libs/events `defaultEmailMode`, also if that default changes.
ALTER TABLE user_preferences ADD COLUMN email_notifications jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Down Migration

ALTER TABLE user_preferences DROP COLUMN email_notifications;
