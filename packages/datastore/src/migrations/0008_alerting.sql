CREATE TABLE "alert_acknowledgments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_acknowledgments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"alert_id" bigint NOT NULL,
	"acknowledged_by" text NOT NULL,
	"acknowledge_type" text DEFAULT 'acknowledge' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"false_positive" boolean DEFAULT false NOT NULL,
	"acknowledged_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_conditions" (
	"rule_id" integer NOT NULL,
	"connection_id" integer NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"object_name" text DEFAULT '' NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_conditions_rule_id_connection_id_database_name_object_name_pk" PRIMARY KEY("rule_id","connection_id","database_name","object_name")
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_rules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"metric_name" text NOT NULL,
	"metric_unit" text,
	"default_operator" text NOT NULL,
	"default_threshold" double precision NOT NULL,
	"default_severity" text NOT NULL,
	"default_enabled" boolean DEFAULT true NOT NULL,
	"default_duration_seconds" integer DEFAULT 0 NOT NULL,
	"required_extension" text,
	"is_built_in" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_name_unique" UNIQUE("name"),
	CONSTRAINT "alert_rules_operator" CHECK ("alert_rules"."default_operator" in ('>', '>=', '<', '<=', '==', '!=')),
	CONSTRAINT "alert_rules_severity" CHECK ("alert_rules"."default_severity" in ('info', 'warning', 'critical')),
	CONSTRAINT "alert_rules_duration" CHECK ("alert_rules"."default_duration_seconds" >= 0)
);
--> statement-breakpoint
CREATE TABLE "alert_thresholds" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_thresholds_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"rule_id" integer NOT NULL,
	"scope" text NOT NULL,
	"scope_id" integer NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"operator" text NOT NULL,
	"threshold" double precision NOT NULL,
	"severity" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"duration_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_thresholds_scope" CHECK ("alert_thresholds"."scope" in ('server', 'cluster', 'group')),
	CONSTRAINT "alert_thresholds_operator" CHECK ("alert_thresholds"."operator" in ('>', '>=', '<', '<=', '==', '!=')),
	CONSTRAINT "alert_thresholds_severity" CHECK ("alert_thresholds"."severity" in ('info', 'warning', 'critical')),
	CONSTRAINT "alert_thresholds_duration" CHECK ("alert_thresholds"."duration_seconds" is null or "alert_thresholds"."duration_seconds" >= 0)
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"alert_type" text NOT NULL,
	"rule_id" integer,
	"connection_id" integer NOT NULL,
	"database_name" text,
	"object_name" text,
	"probe_name" text,
	"metric_name" text,
	"metric_value" double precision,
	"threshold_value" double precision,
	"operator" text,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"correlation_id" text,
	"status" text DEFAULT 'active' NOT NULL,
	"triggered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone,
	"last_updated" timestamp with time zone,
	"anomaly_score" double precision,
	"anomaly_details" jsonb,
	"ai_analysis" text,
	"ai_analysis_metric_value" double precision,
	CONSTRAINT "alerts_type" CHECK ("alerts"."alert_type" in ('threshold', 'anomaly', 'connection')),
	CONSTRAINT "alerts_status" CHECK ("alerts"."status" in ('active', 'acknowledged', 'cleared')),
	CONSTRAINT "alerts_severity" CHECK ("alerts"."severity" in ('info', 'warning', 'critical'))
);
--> statement-breakpoint
CREATE TABLE "anomaly_candidates" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "anomaly_candidates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"connection_id" integer NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"metric_name" text NOT NULL,
	"metric_value" double precision NOT NULL,
	"z_score" double precision NOT NULL,
	"context" jsonb NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed" boolean DEFAULT false NOT NULL,
	"alert_id" bigint
);
--> statement-breakpoint
CREATE TABLE "blackout_schedules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "blackout_schedules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"scope" text NOT NULL,
	"group_id" integer,
	"cluster_id" integer,
	"connection_id" integer,
	"database_name" text,
	"name" text NOT NULL,
	"cron_expression" text NOT NULL,
	"duration_minutes" integer NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_fired_for" timestamp with time zone,
	CONSTRAINT "blackout_schedules_scope" CHECK (("blackout_schedules"."scope" = 'estate' and "blackout_schedules"."group_id" is null and "blackout_schedules"."cluster_id" is null and "blackout_schedules"."connection_id" is null)
  or ("blackout_schedules"."scope" = 'group' and "blackout_schedules"."group_id" is not null and "blackout_schedules"."cluster_id" is null and "blackout_schedules"."connection_id" is null)
  or ("blackout_schedules"."scope" = 'cluster' and "blackout_schedules"."cluster_id" is not null and "blackout_schedules"."group_id" is null and "blackout_schedules"."connection_id" is null)
  or ("blackout_schedules"."scope" = 'server' and "blackout_schedules"."connection_id" is not null and "blackout_schedules"."group_id" is null and "blackout_schedules"."cluster_id" is null)),
	CONSTRAINT "blackout_schedules_duration" CHECK ("blackout_schedules"."duration_minutes" > 0)
);
--> statement-breakpoint
CREATE TABLE "blackouts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "blackouts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"scope" text NOT NULL,
	"group_id" integer,
	"cluster_id" integer,
	"connection_id" integer,
	"database_name" text,
	"reason" text DEFAULT '' NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"schedule_id" integer,
	CONSTRAINT "blackouts_scope" CHECK (("blackouts"."scope" = 'estate' and "blackouts"."group_id" is null and "blackouts"."cluster_id" is null and "blackouts"."connection_id" is null)
  or ("blackouts"."scope" = 'group' and "blackouts"."group_id" is not null and "blackouts"."cluster_id" is null and "blackouts"."connection_id" is null)
  or ("blackouts"."scope" = 'cluster' and "blackouts"."cluster_id" is not null and "blackouts"."group_id" is null and "blackouts"."connection_id" is null)
  or ("blackouts"."scope" = 'server' and "blackouts"."connection_id" is not null and "blackouts"."group_id" is null and "blackouts"."cluster_id" is null)),
	CONSTRAINT "blackouts_window" CHECK ("blackouts"."end_time" >= "blackouts"."start_time")
);
--> statement-breakpoint
CREATE TABLE "email_recipients" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "email_recipients_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"channel_id" integer NOT NULL,
	"email_address" text NOT NULL,
	"display_name" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "metric_baselines" (
	"connection_id" integer NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"metric_name" text NOT NULL,
	"mean" double precision NOT NULL,
	"stddev" double precision NOT NULL,
	"sample_count" integer NOT NULL,
	"first_sample_at" timestamp with time zone NOT NULL,
	"last_calculated" timestamp with time zone NOT NULL,
	CONSTRAINT "metric_baselines_connection_id_database_name_metric_name_pk" PRIMARY KEY("connection_id","database_name","metric_name")
);
--> statement-breakpoint
CREATE TABLE "notification_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"notification_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"succeeded" boolean NOT NULL,
	"response_code" integer,
	"error_message" text,
	"attempted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_channel_overrides" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_channel_overrides_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"channel_id" integer NOT NULL,
	"scope" text NOT NULL,
	"scope_id" integer NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_channel_overrides_scope" CHECK ("notification_channel_overrides"."scope" in ('server', 'cluster', 'group'))
);
--> statement-breakpoint
CREATE TABLE "notification_channels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_channels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"owner_username" text,
	"owner_token" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"channel_type" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"webhook_url_encrypted" text,
	"endpoint_url" text,
	"http_method" text DEFAULT 'POST' NOT NULL,
	"header_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"headers_encrypted" text,
	"auth_type" text,
	"auth_credentials_encrypted" text,
	"smtp_host" text,
	"smtp_port" integer DEFAULT 587 NOT NULL,
	"smtp_username" text,
	"smtp_password_encrypted" text,
	"smtp_use_tls" boolean DEFAULT true NOT NULL,
	"from_address" text,
	"from_name" text,
	"template_alert_fire" text,
	"template_alert_clear" text,
	"template_reminder" text,
	"reminder_enabled" boolean DEFAULT false NOT NULL,
	"reminder_interval_hours" integer DEFAULT 4 NOT NULL,
	"is_estate_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_channels_type" CHECK ("notification_channels"."channel_type" in ('slack', 'mattermost', 'webhook', 'email')),
	CONSTRAINT "notification_channels_reminder" CHECK ("notification_channels"."reminder_interval_hours" > 0)
);
--> statement-breakpoint
CREATE TABLE "notification_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"alert_id" bigint NOT NULL,
	"channel_id" integer NOT NULL,
	"notification_type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reminder_count" integer DEFAULT 0 NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 4 NOT NULL,
	"next_retry_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"claimed_by" text,
	"error_message" text,
	"response_code" integer,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_history_type" CHECK ("notification_history"."notification_type" in ('alert_fire', 'alert_clear', 'reminder')),
	CONSTRAINT "notification_history_status" CHECK ("notification_history"."status" in ('pending', 'sending', 'sent', 'failed', 'retrying'))
);
--> statement-breakpoint
CREATE TABLE "notification_reminder_state" (
	"alert_id" bigint NOT NULL,
	"channel_id" integer NOT NULL,
	"last_reminder_at" timestamp with time zone NOT NULL,
	"reminder_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "notification_reminder_state_alert_id_channel_id_pk" PRIMARY KEY("alert_id","channel_id")
);
--> statement-breakpoint
ALTER TABLE "alert_acknowledgments" ADD CONSTRAINT "alert_acknowledgments_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_conditions" ADD CONSTRAINT "alert_conditions_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_conditions" ADD CONSTRAINT "alert_conditions_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_thresholds" ADD CONSTRAINT "alert_thresholds_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "anomaly_candidates" ADD CONSTRAINT "anomaly_candidates_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "anomaly_candidates" ADD CONSTRAINT "anomaly_candidates_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blackout_schedules" ADD CONSTRAINT "blackout_schedules_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blackouts" ADD CONSTRAINT "blackouts_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_recipients" ADD CONSTRAINT "email_recipients_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD CONSTRAINT "metric_baselines_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_attempts" ADD CONSTRAINT "notification_attempts_notification_id_notification_history_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notification_history"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_channel_overrides" ADD CONSTRAINT "notification_channel_overrides_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_history" ADD CONSTRAINT "notification_history_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_history" ADD CONSTRAINT "notification_history_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_reminder_state" ADD CONSTRAINT "notification_reminder_state_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_reminder_state" ADD CONSTRAINT "notification_reminder_state_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_acknowledgments_alert_idx" ON "alert_acknowledgments" USING btree ("alert_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_thresholds_key" ON "alert_thresholds" USING btree ("rule_id","scope","scope_id","database_name");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_threshold_key" ON "alerts" USING btree ("rule_id","connection_id",coalesce("database_name", ''),coalesce("object_name", '')) WHERE "alerts"."alert_type" = 'threshold' and "alerts"."status" <> 'cleared';--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_connection_key" ON "alerts" USING btree ("connection_id") WHERE "alerts"."alert_type" = 'connection' and "alerts"."status" <> 'cleared';--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_anomaly_key" ON "alerts" USING btree ("metric_name","connection_id",coalesce("database_name", '')) WHERE "alerts"."alert_type" = 'anomaly' and "alerts"."status" <> 'cleared';--> statement-breakpoint
CREATE INDEX "alerts_triggered_at_idx" ON "alerts" USING btree ("triggered_at");--> statement-breakpoint
CREATE INDEX "alerts_connection_status_idx" ON "alerts" USING btree ("connection_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "anomaly_candidates_open_key" ON "anomaly_candidates" USING btree ("connection_id","database_name","metric_name") WHERE not "anomaly_candidates"."processed";--> statement-breakpoint
CREATE INDEX "blackouts_window_idx" ON "blackouts" USING btree ("end_time","start_time");--> statement-breakpoint
CREATE INDEX "email_recipients_channel_idx" ON "email_recipients" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "notification_attempts_notification_idx" ON "notification_attempts" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_channel_overrides_key" ON "notification_channel_overrides" USING btree ("channel_id","scope","scope_id");--> statement-breakpoint
CREATE INDEX "notification_history_due_idx" ON "notification_history" USING btree ("next_retry_at") WHERE "notification_history"."status" in ('pending', 'retrying', 'sending');--> statement-breakpoint
CREATE INDEX "notification_history_alert_idx" ON "notification_history" USING btree ("alert_id");