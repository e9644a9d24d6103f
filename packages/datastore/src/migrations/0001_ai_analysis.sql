CREATE TABLE "ai_analysis_cache" (
	"connection_id" integer PRIMARY KEY NOT NULL,
	"databases" jsonb NOT NULL,
	"generated_at" timestamp with time zone NOT NULL
);
