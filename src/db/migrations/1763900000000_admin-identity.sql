-- Up Migration

-- Admin accounts (decision 012). Emails are stored trimmed and lower-cased, so the unique constraint is
-- case-insensitive. session_version is carried by every session token: moving it ends them all.
CREATE TABLE admin_users (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE CHECK (email = lower(btrim(email)) AND email <> ''),
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'author', 'moderator', 'support', 'auditor')),
  password_hash text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  session_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz
);
CREATE INDEX admin_users_active_owners ON admin_users (id) WHERE role = 'owner' AND active;

-- The audit log: one row per mutating admin request and per login attempt, whatever its outcome.
-- Never holds a password or a token: detail carries field names and non-secret values only.
CREATE TABLE admin_logs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  admin_id uuid,
  action text NOT NULL,
  target_type text,
  target_id text,
  client_ip text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('success', 'failed', 'denied', 'locked', 'error')),
  status_code integer NOT NULL,
  correlation_id text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_logs_by_admin ON admin_logs (admin_id, id);
CREATE INDEX admin_logs_by_action ON admin_logs (action, id);
CREATE INDEX admin_logs_by_target ON admin_logs (target_id, id);
CREATE INDEX admin_logs_by_time ON admin_logs (at);

-- Reason lists served through GET /api/config. A deleted reason keeps its row (deleted_at), because
-- complaints and requests refer to it by id and still show its title.
CREATE TABLE reasons (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('support', 'complaint')),
  title text NOT NULL,
  sort_order integer NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX reasons_listed ON reasons (kind, sort_order, id) WHERE deleted_at IS NULL;

-- Down Migration
DROP TABLE reasons;
DROP TABLE admin_logs;
DROP TABLE admin_users;
