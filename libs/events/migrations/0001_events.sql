-- Up Migration

-- Transactional outbox: a service inserts the event here in the same transaction as the state
-- change; the relay publishes pending rows in seq order and stamps sent_at.
CREATE TABLE event_outbox (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  type text NOT NULL,
  envelope jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

-- The relay only ever scans pending rows; keep that scan independent of the table's history.
CREATE INDEX event_outbox_pending_idx ON event_outbox (seq) WHERE sent_at IS NULL;
CREATE INDEX event_outbox_sent_at_idx ON event_outbox (sent_at) WHERE sent_at IS NOT NULL;

-- Idempotent consumers: a row per (consumer, event) applied, written in the handler's transaction.
CREATE TABLE event_consumed (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  consumed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

CREATE INDEX event_consumed_consumed_at_idx ON event_consumed (consumed_at);

-- Down Migration

DROP TABLE event_consumed;
DROP TABLE event_outbox;
