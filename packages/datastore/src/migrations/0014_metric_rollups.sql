CREATE TABLE "metric_rollup_progress" (
	"probe_name" text NOT NULL,
	"resolution_seconds" integer NOT NULL,
	"rolled_through" timestamp with time zone NOT NULL,
	CONSTRAINT "metric_rollup_progress_probe_name_resolution_seconds_pk" PRIMARY KEY("probe_name","resolution_seconds")
);
