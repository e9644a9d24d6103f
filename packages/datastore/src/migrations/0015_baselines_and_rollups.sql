CREATE TABLE "metric_baseline_hours" (
	"metric_name" text NOT NULL,
	"connection_id" integer NOT NULL,
	"database_name" text DEFAULT '' NOT NULL,
	"object_name" text DEFAULT '' NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"hour_of_day" smallint NOT NULL,
	"day_of_week" smallint NOT NULL,
	"time_zone" text NOT NULL,
	"sample_count" integer NOT NULL,
	"mean" double precision NOT NULL,
	"m2" double precision NOT NULL,
	"min" double precision NOT NULL,
	"max" double precision NOT NULL,
	"first_sample_at" timestamp with time zone NOT NULL,
	"last_sample_at" timestamp with time zone NOT NULL,
	CONSTRAINT "metric_baseline_hours_key" PRIMARY KEY("metric_name","connection_id","database_name","object_name","hour_start","hour_of_day","day_of_week")
);
--> statement-breakpoint
CREATE TABLE "metric_baseline_progress" (
	"metric_name" text PRIMARY KEY NOT NULL,
	"calculated_through" timestamp with time zone NOT NULL,
	"calculated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "metric_rollup_progress" (
	"probe_name" text NOT NULL,
	"resolution_seconds" integer NOT NULL,
	"rolled_through" timestamp with time zone NOT NULL,
	CONSTRAINT "metric_rollup_progress_probe_name_resolution_seconds_pk" PRIMARY KEY("probe_name","resolution_seconds")
);
--> statement-breakpoint
ALTER TABLE "metric_baseline_hours" ADD CONSTRAINT "metric_baseline_hours_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "metric_baseline_hours_metric_hour_idx" ON "metric_baseline_hours" USING btree ("metric_name","hour_start");--> statement-breakpoint
CREATE INDEX "metric_baseline_hours_connection_idx" ON "metric_baseline_hours" USING btree ("connection_id");