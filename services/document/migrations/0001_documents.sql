-- Up Migration

-- Sibling order: every position is taken from this sequence, so a new document always sorts after
-- its existing siblings without reading them; a move with an index renumbers with fresh values.
CREATE SEQUENCE document_position_seq;

CREATE TABLE documents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL,
  parent_id uuid,
  position bigint NOT NULL DEFAULT nextval('document_position_seq'),
  title varchar(500) NOT NULL,
  -- The block-editor JSON array as text: returned as a string, exactly as stored.
  content text NOT NULL DEFAULT '[]',
  plain_text text NOT NULL DEFAULT '',
  excerpt text NOT NULL DEFAULT '',
  word_count integer NOT NULL DEFAULT 0,
  icon varchar(50),
  cover_image_url text,
  is_template boolean NOT NULL DEFAULT false,
  -- An archived document hides its whole subtree: archiving marks every descendant too, and
  -- archive_root_id names the document whose archiving hid it, so restoring that document brings
  -- back exactly what its archiving took (descendants archived on their own stay archived).
  is_archived boolean NOT NULL DEFAULT false,
  archive_root_id uuid,
  is_published boolean NOT NULL DEFAULT false,
  published_at timestamptz,
  owner_id uuid NOT NULL,
  created_by uuid NOT NULL,
  last_edited_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, id),
  -- A parent is always in the same workspace.
  FOREIGN KEY (workspace_id, parent_id) REFERENCES documents (workspace_id, id),
  CHECK (parent_id IS NULL OR parent_id <> id),
  CHECK (is_archived = (archive_root_id IS NOT NULL))
);

-- The tree of a workspace: every field the tree shows is in the index, so the tree query reads
-- the index alone, already in sibling order, never the wide rows with their content.
CREATE INDEX documents_tree_idx ON documents (workspace_id, position) INCLUDE (id, parent_id, updated_at, icon, title)
  WHERE NOT is_archived;
CREATE INDEX documents_workspace_roots_idx ON documents (workspace_id, position) WHERE parent_id IS NULL AND NOT is_archived;
-- Children lists, child counts and subtree walks.
CREATE INDEX documents_parent_idx ON documents (parent_id, position);

-- Users as the workspace service announces them (user.upserted), for createdByUser/lastEditedByUser
-- and for resolving the collab server's identity-provider ids.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  idp_uid text,
  email text,
  name text NOT NULL DEFAULT '',
  avatar_url text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_idp_uid_idx ON users (idp_uid);

-- Comment threads as the comment service announces them (comment.thread_*), for openCommentCount.
CREATE TABLE comment_threads (
  thread_id uuid PRIMARY KEY,
  document_id uuid NOT NULL,
  is_open boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comment_threads_open_idx ON comment_threads (document_id) WHERE is_open;
CREATE INDEX comment_threads_document_idx ON comment_threads (document_id);

-- The collaboration server's binary state (Yjs update), stored and returned byte for byte.
CREATE TABLE collab_states (
  document_id uuid PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  state bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE collab_states;
DROP TABLE comment_threads;
DROP TABLE users;
DROP TABLE documents;
DROP SEQUENCE document_position_seq;
