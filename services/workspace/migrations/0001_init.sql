-- Up Migration

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The identity provider's subject; null only for users known by email before their first sign-in.
  idp_uid text UNIQUE,
  email text NOT NULL,
  name text NOT NULL,
  avatar_url text,
  status text NOT NULL DEFAULT 'active',
  last_login_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

CREATE TABLE user_preferences (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  last_document_id uuid,
  last_workspace_id uuid,
  theme text NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
  sidebar_collapsed boolean NOT NULL DEFAULT false,
  locale varchar(10) NOT NULL DEFAULT 'en',
  notifications_enabled boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name varchar(255) NOT NULL,
  description varchar(1000),
  icon varchar(50),
  color varchar(20),
  owner_id uuid NOT NULL REFERENCES users (id),
  is_default boolean NOT NULL DEFAULT false,
  is_archived boolean NOT NULL DEFAULT false,
  -- Projection of the document service's live (not archived) documents, fed by document.* events.
  document_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workspaces_owner_idx ON workspaces (owner_id);

CREATE TABLE workspace_members (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER')),
  status text NOT NULL DEFAULT 'ACTIVE',
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  invited_at timestamptz,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);

CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER')),
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED')),
  token text NOT NULL UNIQUE,
  message varchar(500),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  responded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one open invitation per address and workspace: inviting again refreshes it.
CREATE UNIQUE INDEX invitations_one_pending_key ON invitations (workspace_id, lower(email)) WHERE status = 'PENDING';
CREATE INDEX invitations_email_idx ON invitations (lower(email)) WHERE status = 'PENDING';

CREATE TABLE mcp_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name varchar(100) NOT NULL,
  -- Hex SHA-256 of the key; the key itself is shown once and never stored.
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_keys_user_idx ON mcp_keys (user_id);

-- The documents currently counted in workspaces.document_count, so that redelivered or
-- reordered document.* events and archive/restore cycles keep the count exact.
CREATE TABLE counted_documents (
  document_id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE
);
CREATE INDEX counted_documents_workspace_idx ON counted_documents (workspace_id);

-- Down Migration

DROP TABLE counted_documents;
DROP TABLE mcp_keys;
DROP TABLE invitations;
DROP TABLE workspace_members;
DROP TABLE workspaces;
DROP TABLE user_preferences;
DROP TABLE users;
