-- Collectors LISTEN on dbmon_connections and pick up new, changed and removed connections at once.
-- Only changes that affect collection notify: the collector's own connection_error updates do not.
CREATE FUNCTION "dbmon_notify_connection_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(
    'dbmon_connections',
    json_build_object('connection_id', COALESCE(NEW.id, OLD.id), 'op', lower(TG_OP))::text
  );
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "connections_notify_insert_delete" AFTER INSERT OR DELETE ON "connections"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_connection_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_update" AFTER UPDATE OF
  "host", "hostaddr", "port", "database_name", "username", "password_encrypted", "sslmode", "sslcert",
  "sslkey", "sslrootcert", "is_monitored", "is_local"
  ON "connections"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_connection_change"();
