-- Up Migration
CREATE TABLE things (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE,
  made_at timestamptz NOT NULL DEFAULT now(),
  big bigint NOT NULL DEFAULT 9007199254740
);

-- Down Migration
DROP TABLE things;
