-- Up Migration

-- One append of `append_to_streams`, its events given as a JSON array of { id, type, data, metadata }.
CREATE FUNCTION append_json_to_stream(p_stream text, p_expected bigint, p_events jsonb)
RETURNS TABLE (outcome text, revision bigint, transaction_id xid8, global_position bigint)
LANGUAGE sql AS $$
  SELECT * FROM append_to_stream(
    p_stream,
    p_expected,
    ARRAY(SELECT (x.e ->> 'id')::uuid FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x (e, n)
      ORDER BY x.n),
    ARRAY(SELECT x.e ->> 'type' FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
    ARRAY(SELECT x.e -> 'data' FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
    ARRAY(SELECT x.e -> 'metadata' FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x (e, n)
      ORDER BY x.n)
  )
$$;

-- A group's appends that each start a new stream (expected no stream, the bulk of them: a new comment, a
-- new post) are written set-wise: one statement creates their streams and one inserts their events,
-- instead of a call of `append_to_stream` each (decision 007). The outcomes are those `append_to_stream`
-- would answer. An append whose ids are stored already, or whose stream exists after all, is handed to
-- `append_to_stream` after its run, which answers it as a duplicate or a conflict exactly as before;
-- neither takes a row lock, so the group still takes its locks in the order of its streams.
CREATE FUNCTION append_new_streams(p_streams text[], p_events jsonb[], p_slots int[])
RETURNS TABLE (slot int, outcome text, revision bigint, transaction_id xid8, global_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_ids uuid[];
  v_stored int[];
  v_created text[];
BEGIN
  -- One index probe for all the ids (a join per id may be planned as a scan of the whole log); which
  -- appends they belong to is looked up only when some are stored, which is rare (a retry).
  v_ids := ARRAY(SELECT (x.e ->> 'id')::uuid FROM unnest(p_slots) AS s (slot),
    jsonb_array_elements(p_events[s.slot]) AS x (e));
  IF EXISTS (SELECT 1 FROM events e WHERE e.event_id = ANY (v_ids)) THEN
    SELECT coalesce(array_agg(DISTINCT s.slot), '{}') INTO v_stored
    FROM unnest(p_slots) AS s (slot), jsonb_array_elements(p_events[s.slot]) AS x (e)
    WHERE (x.e ->> 'id')::uuid IN (SELECT e.event_id FROM events e WHERE e.event_id = ANY (v_ids));
  ELSE
    v_stored := '{}';
  END IF;

  WITH created AS (
    INSERT INTO event_streams AS es (stream_name, revision)
    SELECT p_streams[s.slot], jsonb_array_length(p_events[s.slot]) - 1
    FROM unnest(p_slots) AS s (slot)
    WHERE s.slot <> ALL (v_stored)
    ORDER BY s.slot
    ON CONFLICT (stream_name) DO NOTHING
    RETURNING es.stream_name
  )
  SELECT coalesce(array_agg(created.stream_name), '{}') INTO v_created FROM created;

  RETURN QUERY WITH inserted AS (
    INSERT INTO events AS e (event_id, stream_name, stream_revision, event_type, data, metadata)
    SELECT (x.e ->> 'id')::uuid, p_streams[s.slot], x.n - 1, x.e ->> 'type', x.e -> 'data', x.e -> 'metadata'
    FROM unnest(p_slots) AS s (slot)
      CROSS JOIN LATERAL jsonb_array_elements(p_events[s.slot]) WITH ORDINALITY AS x (e, n)
    WHERE p_streams[s.slot] = ANY (v_created)
    ORDER BY s.slot, x.n
    RETURNING e.stream_name, e.stream_revision, e.transaction_id, e.global_position
  )
  SELECT s.slot, 'written'::text, i.stream_revision, i.transaction_id, i.global_position
  FROM unnest(p_slots) AS s (slot)
    JOIN inserted i ON i.stream_name = p_streams[s.slot]
      AND i.stream_revision = jsonb_array_length(p_events[s.slot]) - 1;

  FOR k IN 1..cardinality(p_slots) LOOP
    CONTINUE WHEN p_streams[p_slots[k]] = ANY (v_created);
    RETURN QUERY SELECT p_slots[k], a.*
      FROM append_json_to_stream(p_streams[p_slots[k]], -1, p_events[p_slots[k]]) AS a;
  END LOOP;
END;
$$;

-- As before, but each run of appends that start a stream named only once in the group goes through
-- `append_new_streams`. The caller still orders the appends by stream.
CREATE OR REPLACE FUNCTION append_to_streams(p_streams text[], p_expected bigint[], p_events jsonb[])
RETURNS TABLE (slot int, outcome text, revision bigint, transaction_id xid8, global_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_run int[] := '{}';
BEGIN
  FOR i IN 1..cardinality(p_streams) LOOP
    IF p_expected[i] = -1 AND p_streams[i] IS DISTINCT FROM p_streams[i - 1]
        AND p_streams[i] IS DISTINCT FROM p_streams[i + 1] THEN
      v_run := v_run || i;
      CONTINUE;
    END IF;
    IF cardinality(v_run) > 0 THEN
      RETURN QUERY SELECT * FROM append_new_streams(p_streams, p_events, v_run);
      v_run := '{}';
    END IF;
    RETURN QUERY SELECT i, a.* FROM append_json_to_stream(p_streams[i], p_expected[i], p_events[i]) AS a;
  END LOOP;
  IF cardinality(v_run) > 0 THEN
    RETURN QUERY SELECT * FROM append_new_streams(p_streams, p_events, v_run);
  END IF;
END;
$$;

-- Down Migration

CREATE OR REPLACE FUNCTION append_to_streams(p_streams text[], p_expected bigint[], p_events jsonb[])
RETURNS TABLE (slot int, outcome text, revision bigint, transaction_id xid8, global_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_events jsonb;
BEGIN
  FOR i IN 1..cardinality(p_streams) LOOP
    v_events := p_events[i];
    RETURN QUERY SELECT i, a.outcome, a.revision, a.transaction_id, a.global_position
      FROM append_to_stream(
        p_streams[i],
        p_expected[i],
        ARRAY(SELECT (x.e ->> 'id')::uuid FROM jsonb_array_elements(v_events) WITH ORDINALITY AS x (e, n)
          ORDER BY x.n),
        ARRAY(SELECT x.e ->> 'type' FROM jsonb_array_elements(v_events) WITH ORDINALITY AS x (e, n)
          ORDER BY x.n),
        ARRAY(SELECT x.e -> 'data' FROM jsonb_array_elements(v_events) WITH ORDINALITY AS x (e, n)
          ORDER BY x.n),
        ARRAY(SELECT x.e -> 'metadata' FROM jsonb_array_elements(v_events) WITH ORDINALITY AS x (e, n)
          ORDER BY x.n)
      ) AS a;
  END LOOP;
END;
$$;

DROP FUNCTION append_new_streams(text[], jsonb[], int[]);
DROP FUNCTION append_json_to_stream(text, bigint, jsonb);
