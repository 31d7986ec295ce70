-- Up Migration

-- Which Intercom contact stands for each user of ours (issue 8): found or created once, then read from here,
-- so a user's requests never search Intercom for their contact again.
CREATE TABLE user_contacts (
  user_id text PRIMARY KEY,
  contact_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration

DROP TABLE user_contacts;
