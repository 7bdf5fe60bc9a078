-- Up Migration

-- Long work (ARCHITECTURE 5.19): one row per job, the BullMQ job carrying only this row's id (the
-- queue's job id is this id too, so a job is never queued twice). The result is written once: a
-- run finds the row done or failed and does nothing.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('import', 'export')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  progress_done integer NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
  progress_total integer NOT NULL DEFAULT 0 CHECK (progress_total >= 0),
  -- What the job was asked (e.g. {format, documentId, includeChildren}): small, ids and options only.
  params jsonb NOT NULL DEFAULT '{}',
  result jsonb,
  error text,
  owner_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  -- The stored file of a finished export (its key in the object store) and until when it is served.
  file_key text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CHECK ((status IN ('done', 'failed')) = (finished_at IS NOT NULL))
);
CREATE INDEX jobs_owner ON jobs (owner_id, created_at);
-- The expiry sweep: finished files past their time.
CREATE INDEX jobs_expiring ON jobs (expires_at) WHERE file_key IS NOT NULL;

-- Down Migration
DROP TABLE jobs;
