-- Up Migration

-- Which import made a document (ARCHITECTURE 5.19; POST /internal/documents/import). A large
-- import arrives in several calls, each its own transaction, so the import's id is the handle that
-- ties them together: a retried call finds what it made before (and makes it again nowhere), and
-- the rollback (DELETE /internal/documents/import/{importId}) finds every document to remove.
-- A row goes with its document.
CREATE TABLE document_imports (
  document_id uuid PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  import_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_imports_import_idx ON document_imports (import_id);

-- Down Migration
DROP TABLE document_imports;
