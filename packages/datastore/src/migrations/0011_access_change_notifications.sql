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
-- Groups, grants and token scopes: any change at all.
DO $$
DECLARE
  name text;
BEGIN
  FOREACH name IN ARRAY ARRAY['rbac_groups', 'group_memberships', 'mcp_privilege_identifiers',
    'group_mcp_privileges', 'group_connection_privileges', 'group_admin_permissions',
    'token_connection_scopes', 'token_mcp_scopes', 'token_admin_scopes']
  LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
         FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"()',
      name || '_notify_access', name);
  END LOOP;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access" AFTER INSERT OR DELETE OR TRUNCATE ON "connections"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access_update" AFTER UPDATE OF "owner_username", "is_shared" ON "connections"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
