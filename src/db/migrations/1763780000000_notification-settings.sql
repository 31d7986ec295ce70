-- Up Migration
CREATE TABLE notification_settings (
  user_id text PRIMARY KEY,
  chat_messages boolean NOT NULL DEFAULT true,
  ticket_updates boolean NOT NULL DEFAULT true,
  system_notices boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE notification_settings;
