-- Up Migration

-- Crypto-shredding (decision 048): one data key per user, wrapped by the master key (DATA_KEY_SECRET). It
-- seals the personal fields of the user's events; deleting the row erases them. `master_id` names the master
-- key that wrapped it, so a rotated secret can still unwrap what the previous one wrapped.
CREATE TABLE data_keys (
  key_id uuid PRIMARY KEY,
  user_id text NOT NULL UNIQUE,
  wrapped bytea NOT NULL,
  master_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Erasures of users (decision 048): what was asked, by whom, and how far it got. No personal data: the
-- host's user id is a pseudonym, and the admin is named by id.
CREATE TABLE user_erasures (
  erasure_id uuid PRIMARY KEY,
  user_id text NOT NULL,
  requested_by text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  steps jsonb NOT NULL DEFAULT '{}'::jsonb,
  finished_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_erasures_user ON user_erasures (user_id, requested_at DESC);
CREATE INDEX user_erasures_due ON user_erasures (next_attempt_at) WHERE finished_at IS NULL;

-- Down Migration

DROP TABLE user_erasures;
DROP TABLE data_keys;
