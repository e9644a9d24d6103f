-- Hourly sums of active session history, so that a load over days reads hours, not minutes:
-- activity_hour_ticks sums activity_ticks per hour; activity_hours sums activity_minutes per hour and
-- per one dimension at a time (dimension '' for none, else the activity_minutes column, with its value
-- and the wait event type). Partitioned by week like the per-minute tables (written by hand: Drizzle
-- declares no partitioning), with default partitions; the collector creates the weeks ahead and
-- retention drops them with the minutes'. The minutes already stored are summed into them here (into
-- the default partitions, which retention empties by range). The primary key of activity_hours
-- includes the count (also by hand: Drizzle declares no INCLUDE), so that a load reads its range of
-- the index only: the collector writes every connection's hours and dimensions together, and a
-- dimension's rows are scattered over the heap (measured: 30,000 heap pages for 117,000 rows).
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
	"dimension" text NOT NULL,
	"value" text NOT NULL,
	"wait_event_type" text NOT NULL,
	"samples" integer NOT NULL,
	CONSTRAINT "activity_hours_pkey" PRIMARY KEY("connection_id","dimension","hour","value","wait_event_type") INCLUDE ("samples")
) PARTITION BY RANGE ("hour");
--> statement-breakpoint
ALTER TABLE "metrics"."activity_hour_ticks" ADD CONSTRAINT "activity_hour_ticks_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metrics"."activity_hours" ADD CONSTRAINT "activity_hours_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "metrics"."activity_hours_default" PARTITION OF "metrics"."activity_hours" DEFAULT;--> statement-breakpoint
CREATE TABLE "metrics"."activity_hour_ticks_default" PARTITION OF "metrics"."activity_hour_ticks" DEFAULT;--> statement-breakpoint
INSERT INTO "metrics"."activity_hours" ("connection_id", "hour", "dimension", "value", "wait_event_type", "samples")
SELECT m."connection_id", date_bin('1 hour', m."minute", timestamptz 'epoch'), d."dimension", d."value", m."wait_event_type", sum(m."samples")
FROM "metrics"."activity_minutes" m
CROSS JOIN LATERAL (VALUES ('', ''), ('database_name', m."database_name"), ('user_name', m."user_name"), ('application_name', m."application_name"), ('client_addr', m."client_addr"), ('wait_event', m."wait_event"), ('query_id', m."query_id"::text)) d("dimension", "value")
GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
INSERT INTO "metrics"."activity_hour_ticks" ("connection_id", "hour", "ticks")
SELECT "connection_id", date_bin('1 hour', "minute", timestamptz 'epoch'), sum("ticks") FROM "metrics"."activity_ticks" GROUP BY 1, 2;
