-- Up Migration

-- The JetStream stream sequence of the event a delivery was made from. A delivery goes only once
-- the webhooks consumer's ack floor has reached it (every older event's deliveries are then
-- committed, whichever replica made them), and one webhook's deliveries about one document go in
-- this order. Rows from before this column keep null: they are older than every row that has one,
-- and among themselves keep the order by occurred_at. The pending index's (webhook, document)
-- prefix still finds the few rows the order check compares.
ALTER TABLE webhook_deliveries ADD COLUMN stream_seq bigint;

-- Down Migration
ALTER TABLE webhook_deliveries DROP COLUMN stream_seq;
