-- API processes keep who-may-do-what in memory and LISTEN on dbmon_access to drop it after any
-- change to users, groups, grants, credentials, scopes or the connections' owner and sharing.
-- New sessions and tokens are not announced: nothing about an unknown credential is kept.
CREATE FUNCTION "dbmon_notify_access_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dbmon_access', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "users_notify_access" AFTER INSERT OR DELETE OR TRUNCATE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
-- Only what a cached caller carries: a failed password or a login (failed_attempts, last_login) must
-- not empty every API process's cache, or anonymous login attempts could keep it empty. A password
-- change ends the user's sessions, which announces itself.
CREATE TRIGGER "users_notify_access_update" AFTER UPDATE OF "username", "enabled", "is_superuser" ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "sessions_notify_access" AFTER UPDATE OR DELETE OR TRUNCATE ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "service_tokens_notify_access" AFTER UPDATE OR DELETE OR TRUNCATE ON "service_tokens"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "rbac_groups_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "rbac_groups"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "group_memberships_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "group_memberships"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "mcp_privilege_identifiers_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "mcp_privilege_identifiers"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "group_mcp_privileges_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "group_mcp_privileges"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "group_connection_privileges_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "group_connection_privileges"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "group_admin_permissions_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "group_admin_permissions"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "token_connection_scopes_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "token_connection_scopes"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "token_mcp_scopes_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "token_mcp_scopes"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "token_admin_scopes_notify_access" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "token_admin_scopes"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access" AFTER INSERT OR DELETE OR TRUNCATE ON "connections"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access_update" AFTER UPDATE OF "owner_username", "is_shared" ON "connections"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
