-- Up Migration

-- Local copy of the documents comments may hang off, fed by document.* and workspace.deleted
-- events and filled on demand from the document service. A deleted document keeps its row as a
-- tombstone (deleted_at set) so that a late read-through answer cannot bring it back.
CREATE TABLE document_projection (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  deleted_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_projection_workspace_idx ON document_projection (workspace_id);

-- Names and avatars of comment authors, fed by user.upserted and filled on demand.
CREATE TABLE user_projection (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text,
  avatar_url text,
  idp_uid text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE comment_threads (
  id uuid PRIMARY KEY,
  document_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  block_id text NOT NULL,
  start_offset integer NOT NULL CHECK (start_offset >= 0),
  end_offset integer NOT NULL CHECK (end_offset >= start_offset),
  selected_text text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'resolved')),
  resolved_at timestamptz,
  resolved_by uuid,
  created_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Insertion order breaks ties between equal created_at values.
  seq bigserial NOT NULL,
  CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND resolved_by IS NOT NULL))
);
CREATE INDEX comment_threads_document_idx ON comment_threads (document_id, created_at, seq);
CREATE INDEX comment_threads_workspace_idx ON comment_threads (workspace_id);

CREATE TABLE comments (
  id uuid PRIMARY KEY,
  thread_id uuid NOT NULL REFERENCES comment_threads (id) ON DELETE CASCADE,
  author_id uuid NOT NULL,
  content text NOT NULL,
  is_edited boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  seq bigserial NOT NULL
);
CREATE INDEX comments_thread_idx ON comments (thread_id, created_at, seq);

-- Down Migration

DROP TABLE comments;
DROP TABLE comment_threads;
DROP TABLE user_projection;
DROP TABLE document_projection;
