-- The triggers of 0011 ran once per statement, so a statement that changed no row still announced a
-- change: an anonymous `POST /auth/logout` (deleting no session) emptied every API process's access
-- cache. They now run once per changed row (and, for updates, only when a column that access facts
-- are read from really changed); PostgreSQL folds identical notifications of one transaction into
-- one, so a statement touching many rows still sends one. TRUNCATE has no rows to look at and stays
-- a statement trigger.
DO $$
DECLARE
  name text;
BEGIN
  FOREACH name IN ARRAY ARRAY['rbac_groups', 'group_memberships', 'mcp_privilege_identifiers',
    'group_mcp_privileges', 'group_connection_privileges', 'group_admin_permissions',
    'token_connection_scopes', 'token_mcp_scopes', 'token_admin_scopes']
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', name || '_notify_access', name);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I
         FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_access_change"()',
      name || '_notify_access', name);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER TRUNCATE ON %I
         FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"()',
      name || '_notify_access_truncate', name);
  END LOOP;
END
$$;
--> statement-breakpoint
DROP TRIGGER "users_notify_access" ON "users";
--> statement-breakpoint
DROP TRIGGER "users_notify_access_update" ON "users";
--> statement-breakpoint
CREATE TRIGGER "users_notify_access" AFTER INSERT OR DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
-- Only what a cached caller carries: failed attempts and logins are not announced (see 0011).
CREATE TRIGGER "users_notify_access_update" AFTER UPDATE ON "users"
  FOR EACH ROW WHEN (OLD."username" IS DISTINCT FROM NEW."username"
    OR OLD."enabled" IS DISTINCT FROM NEW."enabled"
    OR OLD."is_superuser" IS DISTINCT FROM NEW."is_superuser")
  EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "users_notify_access_truncate" AFTER TRUNCATE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
DROP TRIGGER "sessions_notify_access" ON "sessions";
--> statement-breakpoint
CREATE TRIGGER "sessions_notify_access" AFTER UPDATE OR DELETE ON "sessions"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "sessions_notify_access_truncate" AFTER TRUNCATE ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
DROP TRIGGER "service_tokens_notify_access" ON "service_tokens";
--> statement-breakpoint
CREATE TRIGGER "service_tokens_notify_access" AFTER UPDATE OR DELETE ON "service_tokens"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "service_tokens_notify_access_truncate" AFTER TRUNCATE ON "service_tokens"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
DROP TRIGGER "connections_notify_access" ON "connections";
--> statement-breakpoint
DROP TRIGGER "connections_notify_access_update" ON "connections";
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access" AFTER INSERT OR DELETE ON "connections"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access_update" AFTER UPDATE ON "connections"
  FOR EACH ROW WHEN (OLD."owner_username" IS DISTINCT FROM NEW."owner_username"
    OR OLD."is_shared" IS DISTINCT FROM NEW."is_shared")
  EXECUTE FUNCTION "dbmon_notify_access_change"();
--> statement-breakpoint
CREATE TRIGGER "connections_notify_access_truncate" AFTER TRUNCATE ON "connections"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_access_change"();
