-- Up Migration

-- Uploaded files (decision 013): the bytes live in object storage (or UPLOAD_DIR) under storage_key, a
-- random key never derived from the name; this row says whose they are and what they are.
CREATE TABLE files (
  id uuid PRIMARY KEY,
  owner_id text NOT NULL,
  storage_key text NOT NULL UNIQUE,
  content_type text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('image', 'video', 'document', 'text')),
  size bigint NOT NULL CHECK (size > 0),
  original_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_by_owner ON files (owner_id, created_at);

-- Down Migration
DROP TABLE files;
