CREATE TABLE "server_wide_probes" (
	"probe_name" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "connections_address_idx" ON "connections" USING btree ("host","port");--> statement-breakpoint
-- Server-wide probes (server and host scope, but those reading the connected database) are stored
-- once per server, under its representative connection: the lowest-id monitored connection at the
-- server's address (host, hostaddr, port: `serverAddress` in queries/database-ownership.ts), or the
-- lowest id there when none is monitored. Probes stored so before this migration, for the trigger
-- and the clean-up below; the collector keeps the list in step with its catalogue.
INSERT INTO server_wide_probes (probe_name) VALUES
  ('pg_stat_activity'), ('pg_stat_replication'), ('pg_replication_slots'), ('pg_stat_recovery_prefetch'),
  ('pg_stat_subscription'), ('pg_stat_connection_security'), ('pg_stat_io'), ('pg_stat_checkpointer'),
  ('pg_stat_wal'), ('pg_hba_file_rules'), ('pg_ident_file_mappings'), ('pg_server_info'),
  ('pg_connectivity'), ('pg_database'), ('pg_sys_os_info'), ('pg_sys_cpu_info'), ('pg_sys_cpu_usage_info'),
  ('pg_sys_memory_info'), ('pg_sys_io_analysis_info'), ('pg_sys_disk_info'), ('pg_sys_load_avg_info'),
  ('pg_sys_process_info'), ('pg_sys_network_info'), ('pg_sys_cpu_memory_by_process');
--> statement-breakpoint
-- The rule in its set form: each connection with its server's representative, for readers of many
-- connections (one pass over connections, joined on `server_connection_id = rows.connection_id`).
-- `dbmon_address_connection` below is the same rule for one address, as the trigger needs it.
CREATE VIEW dbmon_connection_servers AS
  SELECT c.id AS connection_id, s.server_connection_id
  FROM public.connections c
  JOIN (SELECT host, coalesce(hostaddr, '') AS hostaddr, port,
          coalesce(min(id) FILTER (WHERE is_monitored), min(id)) AS server_connection_id
        FROM public.connections GROUP BY 1, 2, 3) s
    ON s.host = c.host AND s.hostaddr = coalesce(c.hostaddr, '') AND s.port = c.port;
--> statement-breakpoint
-- The representative of an address, leaving out `excluded` (a connection being deleted).
CREATE FUNCTION dbmon_address_connection(address_host text, address_hostaddr text, address_port integer,
    excluded integer DEFAULT NULL) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(min(id) FILTER (WHERE is_monitored), min(id)) FROM public.connections
  WHERE host = address_host AND coalesce(hostaddr, '') = coalesce(address_hostaddr, '')
    AND port = address_port AND id IS DISTINCT FROM excluded
$fn$;
--> statement-breakpoint
-- Whose rows hold `connection`'s server-wide data, for a reader of one connection:
-- `where connection_id = dbmon_server_connection($1)` is an index condition evaluated once per scan.
CREATE FUNCTION dbmon_server_connection(connection integer) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(
    (SELECT server_connection_id FROM public.dbmon_connection_servers WHERE connection_id = connection),
    connection)
$fn$;
--> statement-breakpoint
-- Per-database rows (database probes, stored under the connection collecting each database, the
-- rule of `collectsDatabase`), for each reader: every connection of its server (`source_id`) with the
-- databases a reader reads from it: `own_database` (the reader's own database from the reader
-- itself; a database another monitored connection registers from the lowest-id such connection), and,
-- from the representative, every database in no monitored connection's `registered` (nor the
-- reader's). A row r of source s is read when
-- r.database_name = s.own_database or (s.collects_unregistered and r.database_name <> all(s.registered)).
CREATE VIEW dbmon_database_sources AS
  WITH c AS (
    SELECT c.id, c.host, coalesce(c.hostaddr, '') AS hostaddr, c.port, c.database_name, s.server_connection_id,
      min(c.id) FILTER (WHERE c.is_monitored)
        OVER (PARTITION BY c.host, coalesce(c.hostaddr, ''), c.port, c.database_name) AS database_first,
      coalesce(array_agg(c.database_name) FILTER (WHERE c.is_monitored) OVER address, '{}') AS registered
    FROM public.connections c JOIN public.dbmon_connection_servers s ON s.connection_id = c.id
    WINDOW address AS (PARTITION BY c.host, coalesce(c.hostaddr, ''), c.port))
  SELECT reader.id AS connection_id, source.id AS source_id,
    CASE WHEN source.id = reader.id THEN reader.database_name
      WHEN source.id = source.database_first AND source.database_name <> reader.database_name
        THEN source.database_name END AS own_database,
    source.id = source.server_connection_id AS collects_unregistered,
    source.registered || reader.database_name AS registered
  FROM c reader
  JOIN c source ON source.host = reader.host AND source.hostaddr = reader.hostaddr AND source.port = reader.port;
--> statement-breakpoint
-- Moves the server-wide rows of `from_ids` (raw, rolled up, and their last runs) to `to_id`.
CREATE FUNCTION dbmon_move_server_rows(from_ids integer[], to_id integer) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  target text;
BEGIN
  from_ids := array_remove(from_ids, to_id);
  IF to_id IS NULL OR coalesce(cardinality(from_ids), 0) = 0 THEN
    RETURN;
  END IF;
  FOR target IN
    SELECT p.probe_name FROM public.server_wide_probes p
    WHERE to_regclass(format('metrics.%I', p.probe_name)) IS NOT NULL
  LOOP
    EXECUTE format('UPDATE metrics.%I SET connection_id = $1 WHERE connection_id = ANY($2)', target)
      USING to_id, from_ids;
  END LOOP;
  FOR target IN
    SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'metrics' AND c.relkind = 'p' AND c.relname LIKE 'metric\_rollups\_%'
  LOOP
    EXECUTE format('UPDATE metrics.%I SET connection_id = $1 WHERE connection_id = ANY($2)
      AND probe IN (SELECT probe_name FROM public.server_wide_probes)', target)
      USING to_id, from_ids;
  END LOOP;
  INSERT INTO public.probe_runs (connection_id, probe_name, last_run_at, snapshot_hash, snapshot_collected_at)
  SELECT DISTINCT ON (r.probe_name) to_id, r.probe_name, r.last_run_at, r.snapshot_hash, r.snapshot_collected_at
  FROM public.probe_runs r JOIN public.server_wide_probes p USING (probe_name)
  WHERE r.connection_id = ANY(from_ids)
  ORDER BY r.probe_name, r.last_run_at DESC
  ON CONFLICT (connection_id, probe_name) DO UPDATE SET
    last_run_at = greatest(probe_runs.last_run_at, excluded.last_run_at),
    snapshot_hash = CASE WHEN probe_runs.snapshot_collected_at IS NULL
        OR excluded.snapshot_collected_at > probe_runs.snapshot_collected_at
      THEN excluded.snapshot_hash ELSE probe_runs.snapshot_hash END,
    snapshot_collected_at = greatest(probe_runs.snapshot_collected_at, excluded.snapshot_collected_at);
  DELETE FROM public.probe_runs r USING public.server_wide_probes p
  WHERE r.connection_id = ANY(from_ids) AND r.probe_name = p.probe_name;
END
$fn$;
--> statement-breakpoint
-- Server-wide rows follow their server's representative: when it is deleted, stops being monitored
-- or changes address, its rows go to the next representative of its old address in the same
-- transaction (a connection that was alone at its address carries them along, as before); at the
-- address a connection arrives at (or starts being monitored at), the rows of every other
-- connection there go to the representative. The collector's server-wide stores take the same lock
-- shared, so no run is stored under a representative that has just been replaced.
CREATE FUNCTION dbmon_lock_server_rows() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(7239184570);
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION dbmon_keep_server_rows() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM dbmon_move_server_rows(ARRAY[OLD.id],
      dbmon_address_connection(OLD.host, OLD.hostaddr, OLD.port, OLD.id));
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND (OLD.host, coalesce(OLD.hostaddr, ''), OLD.port)
      IS DISTINCT FROM (NEW.host, coalesce(NEW.hostaddr, ''), NEW.port) THEN
    PERFORM dbmon_move_server_rows(ARRAY[OLD.id], dbmon_address_connection(OLD.host, OLD.hostaddr, OLD.port));
  END IF;
  PERFORM dbmon_move_server_rows(
    ARRAY(SELECT id FROM public.connections WHERE host = NEW.host
      AND coalesce(hostaddr, '') = coalesce(NEW.hostaddr, '') AND port = NEW.port),
    dbmon_address_connection(NEW.host, NEW.hostaddr, NEW.port));
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER connections_server_rows_lock
  BEFORE INSERT OR DELETE OR UPDATE OF host, hostaddr, port, is_monitored ON connections
  FOR EACH STATEMENT EXECUTE FUNCTION dbmon_lock_server_rows();
--> statement-breakpoint
CREATE TRIGGER connections_server_rows_delete
  BEFORE DELETE ON connections FOR EACH ROW EXECUTE FUNCTION dbmon_keep_server_rows();
--> statement-breakpoint
CREATE TRIGGER connections_server_rows_change
  AFTER INSERT OR UPDATE OF host, hostaddr, port, is_monitored ON connections
  FOR EACH ROW EXECUTE FUNCTION dbmon_keep_server_rows();
--> statement-breakpoint
-- Installations from before: every connection of a server holds its own copy of the server-wide
-- rows. Keep the representative's and drop the copies (the representative, collecting since it was
-- registered, has the fullest series; the copies were the same runs).
DO $cleanup$
DECLARE
  target text;
BEGIN
  CREATE TEMPORARY TABLE copies AS
    SELECT connection_id AS id FROM dbmon_connection_servers WHERE connection_id <> server_connection_id;
  FOR target IN
    SELECT p.probe_name FROM server_wide_probes p
    WHERE to_regclass(format('metrics.%I', p.probe_name)) IS NOT NULL
  LOOP
    EXECUTE format('DELETE FROM metrics.%I t USING copies WHERE t.connection_id = copies.id', target);
  END LOOP;
  FOR target IN
    SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'metrics' AND c.relkind = 'p' AND c.relname LIKE 'metric\_rollups\_%'
  LOOP
    EXECUTE format('DELETE FROM metrics.%I t USING copies WHERE t.connection_id = copies.id
      AND t.probe IN (SELECT probe_name FROM server_wide_probes)', target);
  END LOOP;
  DELETE FROM probe_runs r USING server_wide_probes p, copies
  WHERE r.probe_name = p.probe_name AND r.connection_id = copies.id;
  DROP TABLE copies;
END
$cleanup$;
