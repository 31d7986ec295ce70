-- Up Migration

-- The PostgreSQL event store (decision 007). One row per event; a stream's revision is kept in
-- event_streams so that an append checks and moves it under one row lock.
CREATE TABLE event_streams (
  stream_name text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The writing transaction: readers order by (transaction_id, global_position) and read only below the
  -- oldest running transaction, so an event committed late is never passed over.
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id uuid NOT NULL UNIQUE,
  stream_name text NOT NULL,
  stream_category text NOT NULL GENERATED ALWAYS AS (split_part(stream_name, '-', 1)) STORED,
  stream_revision bigint NOT NULL,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_name, stream_revision)
);
CREATE INDEX events_global_order ON events (transaction_id, global_position);
CREATE INDEX events_category_order ON events (stream_category, transaction_id, global_position);

-- Appends a batch to one stream in one round trip. p_expected: -1 no stream yet, -2 any, else the
-- stream's current revision. Answers the outcome ('written', 'duplicate' or 'conflict'), the stream's
-- revision (after the append, or as found on a conflict, -1 for none) and the last event's position.
CREATE FUNCTION append_to_stream(
  p_stream text,
  p_expected bigint,
  p_ids uuid[],
  p_types text[],
  p_data jsonb[],
  p_metadata jsonb[]
) RETURNS TABLE (outcome text, revision bigint, transaction_id xid8, global_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n int := cardinality(p_ids);
  v_revision bigint;
  v_found int;
BEGIN
  -- An idempotent retry: every id is stored already, in this stream. Looked at again after a conflict,
  -- because a concurrent retry of this very append may be what held the stream's row.
  FOR attempt IN 1..2 LOOP
    SELECT count(*), max(e.stream_revision) INTO v_found, v_revision
    FROM events e WHERE e.event_id = ANY (p_ids) AND e.stream_name = p_stream;
    IF v_found = n THEN
      RETURN QUERY SELECT 'duplicate'::text, v_revision, e.transaction_id, e.global_position
        FROM events e WHERE e.stream_name = p_stream AND e.stream_revision = v_revision;
      RETURN;
    ELSIF v_found > 0 THEN
      RAISE EXCEPTION 'some of these event ids are stored already' USING ERRCODE = 'P0E01';
    ELSIF attempt = 2 THEN
      RETURN QUERY SELECT 'conflict'::text, coalesce((SELECT s.revision FROM event_streams s
        WHERE s.stream_name = p_stream), -1), NULL::xid8, NULL::bigint;
      RETURN;
    END IF;

    v_revision := NULL;
    IF p_expected = -1 THEN
      INSERT INTO event_streams AS s (stream_name, revision) VALUES (p_stream, n - 1)
        ON CONFLICT (stream_name) DO NOTHING
        RETURNING s.revision INTO v_revision;
    ELSIF p_expected = -2 THEN
      INSERT INTO event_streams AS s (stream_name, revision) VALUES (p_stream, n - 1)
        ON CONFLICT (stream_name) DO UPDATE SET revision = s.revision + n
        RETURNING s.revision INTO v_revision;
    ELSE
      UPDATE event_streams s SET revision = s.revision + n
        WHERE s.stream_name = p_stream AND s.revision = p_expected
        RETURNING s.revision INTO v_revision;
    END IF;
    EXIT WHEN v_revision IS NOT NULL;
  END LOOP;

  RETURN QUERY WITH inserted AS (
    INSERT INTO events AS e (event_id, stream_name, stream_revision, event_type, data, metadata)
      SELECT i, p_stream, v_revision - n + o, t, d, m
      FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS x (i, t, d, m, o)
      RETURNING e.stream_revision AS r, e.transaction_id AS x, e.global_position AS g
  )
  SELECT 'written'::text, v_revision, inserted.x, inserted.g FROM inserted WHERE inserted.r = v_revision;
  -- No NOTIFY here: the adapter sends it after the commit (see NOTIFY in postgres.ts).
END;
$$;

-- Projections (decision 008): which generation of the read tables is live, and whether it has stopped on
-- an event it could not apply.
CREATE TABLE projections (
  name text PRIMARY KEY,
  active_generation int NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'failed')),
  failed_event_id uuid,
  failed_event_type text,
  error text,
  failed_at timestamptz
);

CREATE TABLE projection_checkpoints (
  name text NOT NULL,
  generation int NOT NULL,
  version int NOT NULL,
  commit_position bigint,
  prepare_position bigint,
  events_applied bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, generation)
);

-- Reactions: their own checkpoints, and the events they gave up on.
CREATE TABLE reaction_checkpoints (
  name text PRIMARY KEY,
  commit_position bigint,
  prepare_position bigint,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE reaction_dead_letters (
  reaction text NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  stream_name text NOT NULL,
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  attempts int NOT NULL,
  last_error text NOT NULL,
  dead_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reaction, event_id)
);

-- Idempotency-Key (API.md): the first response to a (caller, key), replayed on a retry.
CREATE TABLE idempotency_keys (
  caller text NOT NULL,
  key text NOT NULL,
  request_fingerprint text NOT NULL,
  status_code int,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (caller, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
DROP TABLE reaction_dead_letters;
DROP TABLE reaction_checkpoints;
DROP TABLE projection_checkpoints;
DROP TABLE projections;
DROP FUNCTION append_to_stream;
DROP TABLE events;
DROP TABLE event_streams;
