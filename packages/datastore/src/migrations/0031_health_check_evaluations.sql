-- When the alerter's pass last evaluated each connection's health checks, one row per connection:
-- a pass rewrote every check's row (16 per connection, with their findings) only to move its
-- evaluated_at, 2 GB a day at 1,000 databases; it now writes a check's row only when its result changed.
CREATE TABLE "health_check_evaluations" (
	"connection_id" integer PRIMARY KEY NOT NULL,
	"evaluated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "health_check_evaluations" ADD CONSTRAINT "health_check_evaluations_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
INSERT INTO health_check_evaluations (connection_id, evaluated_at)
SELECT connection_id, max(evaluated_at) FROM health_check_status GROUP BY connection_id;
--> statement-breakpoint
ALTER TABLE "health_check_status" DROP COLUMN "evaluated_at";
--> statement-breakpoint
-- query_datastore's role reads it as it reads health_check_status.
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
    overview_summaries, knowledge_base_chunks, health_check_status, health_check_changes,
    server_wide_probes, dbmon_connection_servers, dbmon_database_sources, health_check_evaluations
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
SELECT dbmon_grant_datastore_reader();
