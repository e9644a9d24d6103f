-- Collectors LISTEN on dbmon_probe_configs and reload probe settings at once after any change.
CREATE FUNCTION "dbmon_notify_probe_configs_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dbmon_probe_configs', lower(TG_OP));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "probe_configs_notify" AFTER INSERT OR UPDATE OR DELETE ON "probe_configs"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_probe_configs_change"();
--> statement-breakpoint
-- Server-scope overrides belong to their connection (no foreign key: scope_id also names clusters
-- and groups): they go with it.
CREATE FUNCTION "dbmon_delete_connection_probe_configs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "probe_configs" WHERE "scope" = 'server' AND "scope_id" = OLD.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "connections_delete_probe_configs" AFTER DELETE ON "connections"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_delete_connection_probe_configs"();
