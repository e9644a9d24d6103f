-- Active session history (issue 26). The tables are range-partitioned (written by hand: Drizzle
-- declares no partitioning): raw samples by hour, since at 1 s they are by far the largest and are
-- kept about an hour; per-minute aggregates and tick counts by week, like the probe tables. Retention
-- drops whole partitions instead of deleting rows. The collector creates the partitions ahead of
-- need; the default partitions take rows outside every partition created (and keep inserts working
-- where no collector ever ran).
CREATE SCHEMA IF NOT EXISTS "metrics";
--> statement-breakpoint
CREATE TABLE "metrics"."activity_minutes" (
	"connection_id" integer NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"user_name" text DEFAULT '' NOT NULL,
	"application_name" text DEFAULT '' NOT NULL,
	"client_addr" text DEFAULT '' NOT NULL,
	"backend_type" text DEFAULT '' NOT NULL,
	"state" text DEFAULT '' NOT NULL,
	"wait_event_type" text DEFAULT '' NOT NULL,
	"wait_event" text DEFAULT '' NOT NULL,
	"query_id" bigint DEFAULT 0 NOT NULL,
	"samples" integer NOT NULL,
	CONSTRAINT "activity_minutes_pkey" PRIMARY KEY("connection_id","minute","database_name","user_name","application_name","client_addr","backend_type","state","wait_event_type","wait_event","query_id")
) PARTITION BY RANGE ("minute");
--> statement-breakpoint
CREATE TABLE "metrics"."activity_samples" (
	"connection_id" integer NOT NULL,
	"sampled_at" timestamp with time zone NOT NULL,
	"pid" integer NOT NULL,
	"database_name" text,
	"user_name" text,
	"application_name" text DEFAULT '' NOT NULL,
	"client_addr" text,
	"backend_type" text NOT NULL,
	"state" text,
	"wait_event_type" text,
	"wait_event" text,
	"query_id" bigint,
	"query" text,
	"xact_start" timestamp with time zone,
	"query_start" timestamp with time zone,
	"state_change" timestamp with time zone,
	"blocking_pids" integer[] DEFAULT '{}'::integer[] NOT NULL
) PARTITION BY RANGE ("sampled_at");
--> statement-breakpoint
CREATE TABLE "metrics"."activity_ticks" (
	"connection_id" integer NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"ticks" integer NOT NULL,
	CONSTRAINT "activity_ticks_pkey" PRIMARY KEY("connection_id","minute")
) PARTITION BY RANGE ("minute");
--> statement-breakpoint
ALTER TABLE "metrics"."activity_minutes" ADD CONSTRAINT "activity_minutes_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metrics"."activity_samples" ADD CONSTRAINT "activity_samples_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metrics"."activity_ticks" ADD CONSTRAINT "activity_ticks_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_samples_connection_sampled_idx" ON "metrics"."activity_samples" USING btree ("connection_id","sampled_at");;--> statement-breakpoint
CREATE TABLE "metrics"."activity_samples_default" PARTITION OF "metrics"."activity_samples" DEFAULT;--> statement-breakpoint
CREATE TABLE "metrics"."activity_minutes_default" PARTITION OF "metrics"."activity_minutes" DEFAULT;--> statement-breakpoint
CREATE TABLE "metrics"."activity_ticks_default" PARTITION OF "metrics"."activity_ticks" DEFAULT;
