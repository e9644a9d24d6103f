CREATE TABLE "overview_summaries" (
	"scope_key" text PRIMARY KEY NOT NULL,
	"summary" text NOT NULL,
	"snapshot" jsonb NOT NULL,
	"restart_detected" boolean DEFAULT false NOT NULL,
	"generated_at" timestamp with time zone NOT NULL
);
