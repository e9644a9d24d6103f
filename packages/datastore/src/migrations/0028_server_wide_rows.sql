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
-- The representative of an address, leaving out `excluded` (a connection being deleted).
CREATE FUNCTION dbmon_address_connection(address_host text, address_hostaddr text, address_port integer,
    excluded integer DEFAULT NULL) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(min(id) FILTER (WHERE is_monitored), min(id)) FROM public.connections
  WHERE host = address_host AND coalesce(hostaddr, '') = coalesce(address_hostaddr, '')
    AND port = address_port AND id IS DISTINCT FROM excluded
$fn$;
--> statement-breakpoint
-- Whose rows hold `connection`'s server-wide data: readers write
-- `where connection_id = dbmon_server_connection($1)`, an index condition evaluated once per scan.
CREATE FUNCTION dbmon_server_connection(connection integer) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(
    (SELECT dbmon_address_connection(c.host, c.hostaddr, c.port) FROM public.connections c WHERE c.id = connection),
    connection)
$fn$;
--> statement-breakpoint
-- Whose rows hold database `database`'s per-database data for a reader of `connection` (the rule of
-- `collectsDatabase`): its own database is its own; a database another monitored connection of the
-- server registers is that connection's (the lowest id); any other database is the representative's.
CREATE FUNCTION dbmon_database_connection(connection integer, database text) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(
    (SELECT CASE WHEN c.database_name = database THEN c.id
       ELSE coalesce(
         (SELECT min(o.id) FROM public.connections o
          WHERE o.host = c.host AND coalesce(o.hostaddr, '') = coalesce(c.hostaddr, '') AND o.port = c.port
            AND o.is_monitored AND o.database_name = database),
         dbmon_address_connection(c.host, c.hostaddr, c.port)) END
     FROM public.connections c WHERE c.id = connection),
    connection)
$fn$;
--> statement-breakpoint
-- Every connection of `connection`'s server (its address), for readers that gather per-database rows
-- of the whole server: `connection_id = any(dbmon_server_connections($1))` and then
-- `connection_id = dbmon_database_connection($1, database_name)`.
CREATE FUNCTION dbmon_server_connections(connection integer) RETURNS integer[]
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(
    (SELECT array_agg(o.id ORDER BY o.id) FROM public.connections c JOIN public.connections o
       ON o.host = c.host AND coalesce(o.hostaddr, '') = coalesce(c.hostaddr, '') AND o.port = c.port
     WHERE c.id = connection),
    ARRAY[connection])
$fn$;
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
    SELECT id FROM connections WHERE id <> dbmon_server_connection(id);
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
