-- Up Migration

-- Read markers of the support chat (issue 8): plain state (decision 003), read for unread badges.
-- A user's watermark in one conversation: the last message they have seen, and when it was written.
CREATE TABLE conversation_reads (
  user_id text NOT NULL,
  conversation_id text NOT NULL,
  last_read_message_id text,
  last_read_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, conversation_id)
);

-- The last version of a ticket the user has looked at: a ticket updated since is unread (decision 020).
CREATE TABLE ticket_reads (
  user_id text NOT NULL,
  ticket_id text NOT NULL,
  seen_updated_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, ticket_id)
);

-- Down Migration

DROP TABLE ticket_reads;
DROP TABLE conversation_reads;
