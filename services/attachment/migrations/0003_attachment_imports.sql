-- Up Migration

-- The import that stored a file (POST /internal/attachments, ARCHITECTURE 5.19): an import stores
-- its images before it makes their documents, so a failed import removes them by this id
-- (DELETE /internal/attachments/import/{importId}); NULL for every upload of a person.
ALTER TABLE attachments ADD COLUMN import_id uuid;
CREATE INDEX attachments_import ON attachments (import_id) WHERE import_id IS NOT NULL;

-- Down Migration
DROP INDEX attachments_import;
ALTER TABLE attachments DROP COLUMN import_id;
