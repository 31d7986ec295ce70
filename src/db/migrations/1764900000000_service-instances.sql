-- Up Migration

-- The service's processes, each seen by the others through a heartbeat (docs/scale-out.md). A process
-- that stopped beating for 15 s is gone; its row is deleted on a clean stop, or pruned after an hour.
CREATE TABLE service_instances (
  id text PRIMARY KEY,
  name text NOT NULL,
  roles text[] NOT NULL,
  -- Whether the process keeps its shared state (limits, lockouts, presence, invalidations) in Redis.
  shares_state boolean NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration

DROP TABLE service_instances;
