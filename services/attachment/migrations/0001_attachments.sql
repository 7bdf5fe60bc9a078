-- Up Migration

-- One row per stored file. The object in storage is written first and the row after it, so a
-- row always names bytes that were whole; an object without a row (a crash between the two, a
-- delete whose storage call failed) is removed by the orphan sweep.
CREATE TABLE attachments (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  document_id uuid NOT NULL,
  storage_key text NOT NULL UNIQUE,
  file_name text NOT NULL,
  file_size bigint NOT NULL CHECK (file_size >= 0),
  mime_type text NOT NULL,
  width integer,
  height integer,
  -- Of the bytes as stored: the ETag, the same on every replica and driver.
  sha256 text NOT NULL,
  uploaded_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_document ON attachments (document_id, created_at, id);
CREATE INDEX attachments_workspace ON attachments (workspace_id);

-- Documents and workspaces whose deletion this service has applied: an upload that checked its
-- document before the deletion and writes its row after it finds the tombstone and stores nothing.
CREATE TABLE removed_owners (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('document', 'workspace')),
  removed_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE removed_owners;
DROP TABLE attachments;
