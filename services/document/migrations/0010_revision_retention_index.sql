-- Up Migration

-- The retention job (src/events/revision-retention.ts) walks the rows older than the keep period,
-- oldest first, a bounded number per step from where the last step stopped: this index makes each
-- step read just those rows, however long the history.
CREATE INDEX document_revisions_created_idx ON document_revisions (created_at, id);

-- Down Migration
DROP INDEX document_revisions_created_idx;
