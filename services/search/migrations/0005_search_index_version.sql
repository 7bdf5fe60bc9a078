-- Up Migration

-- One counter bumped after every write to the index (any engine, any replica, the reindex too):
-- a search answer remembered under one value is never served once the index has changed.
CREATE TABLE search_index_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL
);
INSERT INTO search_index_version (id, version) VALUES (true, 0);

-- Down Migration
DROP TABLE search_index_version;
