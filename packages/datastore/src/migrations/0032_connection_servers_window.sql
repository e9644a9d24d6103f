-- The same rule as migration 0029's view (each connection with its server's representative: the
-- lowest-id monitored connection at its address, else the lowest id there), computed with a window
-- over one scan of connections instead of joining connections with their own grouping. The planner
-- estimated that join on three columns (one an expression) at one row whatever the fleet, and so
-- chose plans that re-ran a whole statement per reader; a window's estimate is the table's rows.
CREATE OR REPLACE VIEW dbmon_connection_servers AS
  SELECT id AS connection_id,
    coalesce(min(id) FILTER (WHERE is_monitored) OVER address, min(id) OVER address) AS server_connection_id
  FROM public.connections
  WINDOW address AS (PARTITION BY host, coalesce(hostaddr, ''), port);
