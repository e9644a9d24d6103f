CREATE TABLE "probe_configs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "probe_configs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"collection_interval_seconds" integer NOT NULL,
	"retention_days" integer NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"scope" text NOT NULL,
	"scope_id" integer DEFAULT 0 NOT NULL,
	"user_modified" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "probe_configs_name_scope_key" UNIQUE("name","scope","scope_id"),
	CONSTRAINT "probe_configs_scope" CHECK ("probe_configs"."scope" in ('global', 'group', 'cluster', 'server')),
	CONSTRAINT "probe_configs_scope_id" CHECK (("probe_configs"."scope" = 'global') = ("probe_configs"."scope_id" = 0)),
	CONSTRAINT "probe_configs_interval_positive" CHECK ("probe_configs"."collection_interval_seconds" > 0),
	CONSTRAINT "probe_configs_retention_positive" CHECK ("probe_configs"."retention_days" > 0)
);
