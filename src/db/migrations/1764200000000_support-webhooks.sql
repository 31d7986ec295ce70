-- Up Migration

-- The support webhook inbox (decision 019). A verified delivery is stored here before Intercom gets its 200,
-- then processed by a worker on any replica. `notification` is the minimal record of src/chat/notifications.ts:
-- ids, topics, times and states, never a message body (spec rule 1: message logs are not copied). The
-- primary key makes a redelivery of the same notification a no-op.
CREATE TABLE processed_events (
  notification_id text PRIMARY KEY,
  topic text NOT NULL,
  notification jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  -- Tries so far; a failed try waits until next_attempt_at (backoff), the last one sets failed_at.
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  failed_at timestamptz,
  -- An error class or code (`TimeoutError`, `ProviderError:unavailable`), never a message that may quote data.
  last_error text CHECK (char_length(last_error) <= 200),
  CHECK (processed_at IS NULL OR failed_at IS NULL)
);
-- What the worker claims, oldest first; small, since processed and failed rows drop out of it.
CREATE INDEX processed_events_pending ON processed_events (received_at, notification_id)
  WHERE processed_at IS NULL AND failed_at IS NULL;
-- Retention (about 7 days, spec "Limits").
CREATE INDEX processed_events_by_received_at ON processed_events (received_at);

-- Conversation timing for admin analytics, written when the close webhook is processed. One row per
-- close: a redelivery, or the same close seen twice out of order, meets the unique key and adds nothing.
CREATE TABLE conversation_durations (
  conversation_id text NOT NULL,
  opened_at timestamptz NOT NULL,
  closed_at timestamptz NOT NULL,
  duration_seconds integer GENERATED ALWAYS AS (floor(extract(epoch FROM closed_at - opened_at))::integer) STORED,
  notification_id text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (conversation_id, closed_at),
  CHECK (closed_at >= opened_at)
);
CREATE INDEX conversation_durations_by_closed_at ON conversation_durations (closed_at);

-- Pushes the service sent or would have sent: ids and categories only, never what was said. `source_id`
-- (the notification id, suffixed per contact) makes a repeated dispatch record nothing new.
CREATE TABLE push_log (
  id bigserial PRIMARY KEY,
  source_id text NOT NULL UNIQUE,
  user_id text NOT NULL,
  category text NOT NULL CHECK (category IN ('chat', 'ticket', 'system')),
  conversation_id text,
  ticket_id text,
  csat boolean NOT NULL DEFAULT false,
  outcome text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_log_newest ON push_log (created_at DESC);

-- Down Migration

DROP TABLE push_log;
DROP TABLE conversation_durations;
DROP TABLE processed_events;
