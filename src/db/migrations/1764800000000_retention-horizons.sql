-- Up Migration

-- Data retention (decision 028). Per pruned read table, the instant before which its rows are gone. It only
-- moves forward. A projection whose table is pruned (clicks) skips events older than it, so a rebuild from
-- the log does not bring back what the retention job deleted.
CREATE TABLE retention_horizons (
  name text PRIMARY KEY,
  horizon timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration

DROP TABLE retention_horizons;
