-- Up Migration

-- Webhooks of a workspace (ARCHITECTURE 5.18). The secret signs every body, so it is kept as
-- given out (like any HMAC key), and it leaves the service only in the answer that created it.
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  url text NOT NULL,
  -- Event type names, `<group>.*` prefixes, or `*` for every event.
  events text[] NOT NULL,
  secret text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The first failed attempt since the last success (null while deliveries succeed): a webhook
  -- failing for WEBHOOK_DISABLE_AFTER_MS is disabled.
  failing_since timestamptz
);
CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at);

-- One row per webhook and event (a redelivered event finds its row and adds nothing).
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  occurred_at timestamptz NOT NULL,
  -- The document the event is about: one webhook's deliveries about one document go out in order.
  document_id uuid,
  -- The exact body sent (signed anew at each attempt with that attempt's time).
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  response_status integer,
  duration_ms integer,
  -- Bumped by each redeliver request: names the queue job of that round.
  round integer NOT NULL DEFAULT 0,
  -- Retries stop after this (created_at, or the redeliver request, plus WEBHOOK_RETRY_WINDOW_MS).
  retry_until timestamptz NOT NULL,
  seq bigserial,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  last_attempt_at timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, seq DESC);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, document_id, occurred_at, seq)
  WHERE status = 'pending';

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
