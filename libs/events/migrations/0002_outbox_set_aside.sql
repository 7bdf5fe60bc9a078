-- Up Migration

-- A row NATS refused for a reason retrying cannot change (e.g. bigger than the server's
-- max_payload) is set aside: kept, with why and when, and no longer in the relay's way.
ALTER TABLE event_outbox
  ADD COLUMN failed_at timestamptz,
  ADD COLUMN failure text;

-- The relay's scan skips rows set aside; they get an index of their own for counting and inspection.
DROP INDEX event_outbox_pending_idx;
CREATE INDEX event_outbox_pending_idx ON event_outbox (seq) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX event_outbox_set_aside_idx ON event_outbox (seq) WHERE failed_at IS NOT NULL;

-- The event stream as the relay of this database last saw it. When the stream's creation time
-- differs (the broker lost its store, or an operator re-created the stream), the outbox rows sent
-- to the stream that is gone are sent again.
CREATE TABLE event_stream_seen (
  stream text PRIMARY KEY,
  created text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration

DROP TABLE event_stream_seen;
DROP INDEX event_outbox_set_aside_idx;
DROP INDEX event_outbox_pending_idx;
CREATE INDEX event_outbox_pending_idx ON event_outbox (seq) WHERE sent_at IS NULL;
ALTER TABLE event_outbox DROP COLUMN failure, DROP COLUMN failed_at;
