-- Hourly sums of active session history (activity_minutes and activity_ticks per hour), so that a
-- load over days reads hours, not minutes. Partitioned by week like the per-minute tables (written
-- by hand: Drizzle declares no partitioning), with default partitions; the collector creates the
-- weeks ahead and retention drops them with the minutes'. The minutes already stored are summed
-- into them here (into the default partitions, which retention empties by range).
CREATE TABLE "metrics"."activity_hour_ticks" (
	"connection_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"ticks" integer NOT NULL,
	CONSTRAINT "activity_hour_ticks_pkey" PRIMARY KEY("connection_id","hour")
) PARTITION BY RANGE ("hour");
--> statement-breakpoint
CREATE TABLE "metrics"."activity_hours" (
	"connection_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
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
	CONSTRAINT "activity_hours_pkey" PRIMARY KEY("connection_id","hour","database_name","user_name","application_name","client_addr","backend_type","state","wait_event_type","wait_event","query_id")
) PARTITION BY RANGE ("hour");
--> statement-breakpoint
ALTER TABLE "metrics"."activity_hour_ticks" ADD CONSTRAINT "activity_hour_ticks_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metrics"."activity_hours" ADD CONSTRAINT "activity_hours_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "metrics"."activity_hours_default" PARTITION OF "metrics"."activity_hours" DEFAULT;--> statement-breakpoint
CREATE TABLE "metrics"."activity_hour_ticks_default" PARTITION OF "metrics"."activity_hour_ticks" DEFAULT;--> statement-breakpoint
INSERT INTO "metrics"."activity_hours" ("connection_id", "hour", "database_name", "user_name", "application_name", "client_addr", "backend_type", "state", "wait_event_type", "wait_event", "query_id", "samples")
SELECT "connection_id", date_bin('1 hour', "minute", timestamptz 'epoch'), "database_name", "user_name", "application_name", "client_addr", "backend_type", "state", "wait_event_type", "wait_event", "query_id", sum("samples")
FROM "metrics"."activity_minutes" GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;--> statement-breakpoint
INSERT INTO "metrics"."activity_hour_ticks" ("connection_id", "hour", "ticks")
SELECT "connection_id", date_bin('1 hour', "minute", timestamptz 'epoch'), sum("ticks") FROM "metrics"."activity_ticks" GROUP BY 1, 2;
