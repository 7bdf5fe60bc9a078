-- Up Migration

-- Where `npm run reindex` stands, one row per scope being rebuilt: a workspace id, or '*' for
-- every workspace. Written after each batch (its documents indexed and the index entries between
-- the previous checkpoint and this one swept), so that an interrupted run resumes after last_id;
-- deleted when the run finishes, so that the next run starts from the first document again.
CREATE TABLE reindex_progress (
  scope text PRIMARY KEY,
  last_id uuid NOT NULL,
  started_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  batches integer NOT NULL,
  indexed bigint NOT NULL,
  removed bigint NOT NULL
);

-- Down Migration
DROP TABLE reindex_progress;
