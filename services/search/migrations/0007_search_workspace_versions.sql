-- Up Migration

-- One counter per workspace, bumped after every write to that workspace's part of the index (any
-- engine, any replica, the reindex too): a search answer remembered under one value is never
-- served once the workspace's documents changed, and a write elsewhere leaves it valid. A
-- workspace without a row has never been written since this table exists: version 0.
CREATE TABLE search_workspace_versions (
  workspace_id uuid PRIMARY KEY,
  version bigint NOT NULL
);

-- Replaced by the table above (one counter for the whole index cleared every answer on any write).
DROP TABLE search_index_version;

-- Down Migration
CREATE TABLE search_index_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL
);
INSERT INTO search_index_version (id, version) VALUES (true, 0);
DROP TABLE search_workspace_versions;
