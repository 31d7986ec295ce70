-- Up Migration

-- Push delivery (decision 025). push_log keeps one row per push the service wants to send (its source: a
-- reply for one user, a post or a notice for many); push_deliveries one row per (source, device), which is
-- what makes a delivery happen at most once per device in normal operation. Ids and outcomes only: no
-- title, no body, no token (a device is named by a digest of its token).
ALTER TABLE push_log
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN kind text NOT NULL DEFAULT 'reply' CHECK (kind IN ('reply', 'post', 'notice')),
  ADD COLUMN post_id text,
  ADD COLUMN notice_id text,
  -- Where the fan-out stands: the last user whose devices it queued, and whether it is done.
  ADD COLUMN cursor_user_id text,
  ADD COLUMN fanned_out_at timestamptz;

CREATE TABLE push_deliveries (
  source_id text NOT NULL,
  device_key text NOT NULL,
  user_id text NOT NULL,
  platform text NOT NULL CHECK (platform IN ('mobile', 'tma')),
  outcome text NOT NULL,
  code text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, device_key)
);
CREATE INDEX push_deliveries_newest ON push_deliveries (updated_at DESC);

-- Consecutive refusals of a messenger chat (Telegram 403): the device goes after a few in a row.
CREATE TABLE push_device_refusals (
  device_key text PRIMARY KEY,
  refusals integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Telegram's pace across every replica: when each chat may next get a message, and (key '') until when
-- the whole bot is asked to wait after a 429.
CREATE TABLE push_messenger_pace (
  chat_key text PRIMARY KEY,
  next_at timestamptz NOT NULL
);

-- System notices an admin sent: what they said and to whom (absent: every user with a device).
CREATE TABLE push_notices (
  id text PRIMARY KEY,
  title text NOT NULL,
  body text NOT NULL,
  user_ids text[],
  admin_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_notices_newest ON push_notices (created_at DESC, id DESC);

-- Down Migration
DROP TABLE push_notices;
DROP TABLE push_messenger_pace;
DROP TABLE push_device_refusals;
DROP TABLE push_deliveries;
DELETE FROM push_log WHERE user_id IS NULL;
ALTER TABLE push_log
  DROP COLUMN fanned_out_at,
  DROP COLUMN cursor_user_id,
  DROP COLUMN notice_id,
  DROP COLUMN post_id,
  DROP COLUMN kind,
  ALTER COLUMN user_id SET NOT NULL;
