-- The role the query_datastore MCP tool runs as (SET LOCAL ROLE inside a READ ONLY transaction): it
-- reads metrics, alerts, rules, blackouts, clusters and probe settings, and never password hashes,
-- sessions, tokens, encrypted passwords or channel secrets, nor users' conversations and memories.
-- Only what is granted here is readable; tables added later stay closed unless a migration grants
-- them. A datastore user without CREATEROLE cannot create the role: the migration then skips it and
-- the tool refuses to run. An administrator can create it later and then run, as the datastore
-- user, `SELECT dbmon_grant_datastore_reader()` to apply the grants (docs/mcp.md).
CREATE OR REPLACE FUNCTION dbmon_grant_datastore_reader() RETURNS boolean LANGUAGE plpgsql AS $grants$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dbmon_datastore_reader') THEN
    RETURN false;
  END IF;
  GRANT USAGE ON SCHEMA public TO dbmon_datastore_reader;
  GRANT SELECT ON
    ai_analysis_cache, alert_acknowledgments, alert_conditions, alert_rules, alert_thresholds, alerts,
    anomaly_candidates, blackout_schedules, blackouts, metric_baseline_hours, metric_baseline_progress,
    metric_baselines, notification_channel_overrides, notification_reminder_state,
    group_admin_permissions, group_connection_privileges, group_mcp_privileges, group_memberships,
    mcp_privilege_identifiers, rbac_groups, cluster_groups, cluster_node_relationships, clusters,
    collector_instances, collector_leases, metric_rollup_progress, probe_runs, probe_configs,
    overview_summaries, knowledge_base_chunks
    TO dbmon_datastore_reader;
  -- Tables that also hold secrets or personal data: only the other columns.
  GRANT SELECT (id, username, display_name, enabled, is_superuser, is_service_account, created_at)
    ON users TO dbmon_datastore_reader;
  GRANT SELECT (id, name, description, host, hostaddr, port, database_name, username, sslmode,
                owner_username, is_shared, is_monitored, is_local, cluster_id, role, membership_source,
                connection_error, created_at, updated_at)
    ON connections TO dbmon_datastore_reader;
  GRANT SELECT (id, owner_username, enabled, channel_type, name, description, http_method, header_names,
                auth_type, smtp_host, smtp_port, smtp_use_tls, from_address, from_name,
                template_alert_fire, template_alert_clear, template_reminder, reminder_enabled,
                reminder_interval_hours, is_estate_default, created_at, updated_at)
    ON notification_channels TO dbmon_datastore_reader;
  GRANT SELECT (id, channel_id, enabled, created_at) ON email_recipients TO dbmon_datastore_reader;
  -- Delivery errors can quote a webhook's answer or address: left out.
  GRANT SELECT (id, alert_id, channel_id, notification_type, status, reminder_count, attempt_count,
                max_attempts, next_retry_at, claimed_until, claimed_by, response_code, sent_at, created_at)
    ON notification_history TO dbmon_datastore_reader;
  GRANT SELECT (id, notification_id, attempt, succeeded, response_code, attempted_at, sent_by)
    ON notification_attempts TO dbmon_datastore_reader;

  -- Collected metrics: the collector creates the schema's tables as this same user, later.
  CREATE SCHEMA IF NOT EXISTS metrics;
  GRANT USAGE ON SCHEMA metrics TO dbmon_datastore_reader;
  GRANT SELECT ON ALL TABLES IN SCHEMA metrics TO dbmon_datastore_reader;
  ALTER DEFAULT PRIVILEGES IN SCHEMA metrics GRANT SELECT ON TABLES TO dbmon_datastore_reader;
  RETURN true;
END
$grants$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION dbmon_grant_datastore_reader() FROM PUBLIC;
--> statement-breakpoint
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dbmon_datastore_reader') THEN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
      RAISE NOTICE 'dbmon_datastore_reader not created: % lacks CREATEROLE; query_datastore stays unavailable', current_user;
      RETURN;
    END IF;
    BEGIN
      CREATE ROLE dbmon_datastore_reader NOLOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object THEN
      NULL; -- created at the same moment by the migration of another database on this server
    END;
  END IF;
  -- The datastore user must be able to SET ROLE to it (superusers always can).
  IF NOT pg_has_role(current_user, 'dbmon_datastore_reader', 'MEMBER') THEN
    BEGIN
      EXECUTE format('GRANT dbmon_datastore_reader TO %I', current_user);
    EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
      RAISE NOTICE '% cannot be granted dbmon_datastore_reader; query_datastore stays unavailable', current_user;
    END;
  END IF;
  PERFORM dbmon_grant_datastore_reader();
END
$$;
