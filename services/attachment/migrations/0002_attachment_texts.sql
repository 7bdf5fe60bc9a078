-- Up Migration

-- The text of an attachment, extracted once after its upload for search (ARCHITECTURE 5.20): at
-- most ATTACHMENTS_TEXT_MAX_CHARS characters (truncated says it was cut). A file that could not be
-- read (broken, too slow, too big for the worker) has a 'failed' row with its reason, so a
-- redelivered upload event does not try again; a file without text (a scanned PDF) has an empty one.
CREATE TABLE attachment_texts (
  attachment_id uuid PRIMARY KEY REFERENCES attachments (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('text', 'failed')),
  text text NOT NULL DEFAULT '',
  truncated boolean NOT NULL DEFAULT false,
  reason text,
  extracted_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE attachment_texts;
