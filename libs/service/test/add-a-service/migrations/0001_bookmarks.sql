-- Up Migration

-- The throwaway service of add-a-service.test.ts: a user's bookmarks of documents.
CREATE TABLE bookmarks (
  user_id uuid NOT NULL,
  document_id uuid NOT NULL,
  note text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, document_id)
);
CREATE INDEX bookmarks_document_idx ON bookmarks (document_id);

-- Down Migration

DROP TABLE bookmarks;
