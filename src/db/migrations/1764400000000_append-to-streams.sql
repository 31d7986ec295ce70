-- Up Migration

-- Several appends in one statement and one transaction (decision 007): the adapter groups the appends
-- that arrive together, which spares a round trip and a commit for each but the first. Each append keeps
-- its own expected revision and outcome, exactly as `append_to_stream` answers it alone. The caller
-- orders them by stream, so two groups take the streams' row locks in the same order and cannot deadlock.
-- `p_events[i]` holds the i-th append's events: a JSON array of { id, type, data, metadata }.
CREATE FUNCTION append_to_streams(p_streams text[], p_expected bigint[], p_events jsonb[])
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

-- Down Migration

DROP FUNCTION append_to_streams(text[], bigint[], jsonb[]);
