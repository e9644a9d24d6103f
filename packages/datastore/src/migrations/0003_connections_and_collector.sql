CREATE TABLE "collector_instances" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collector_leases" (
	"connection_id" integer PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "probe_runs" (
	"connection_id" integer NOT NULL,
	"probe_name" text NOT NULL,
	"last_run_at" timestamp with time zone NOT NULL,
	"snapshot_hash" text,
	"snapshot_collected_at" timestamp with time zone,
	CONSTRAINT "probe_runs_connection_id_probe_name_pk" PRIMARY KEY("connection_id","probe_name")
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "connections_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text,
	"host" text NOT NULL,
	"hostaddr" text,
	"port" integer DEFAULT 5432 NOT NULL,
	"database_name" text NOT NULL,
	"username" text NOT NULL,
	"password_encrypted" text,
	"sslmode" text DEFAULT 'prefer' NOT NULL,
	"sslcert" text,
	"sslkey" text,
	"sslrootcert" text,
	"owner_username" text,
	"owner_token" text,
	"is_shared" boolean DEFAULT false NOT NULL,
	"is_monitored" boolean DEFAULT true NOT NULL,
	"is_local" boolean DEFAULT false NOT NULL,
	"cluster_id" integer,
	"role" text,
	"membership_source" text DEFAULT 'auto' NOT NULL,
	"connection_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connections_port_range" CHECK ("connections"."port" between 1 and 65535),
	CONSTRAINT "connections_sslmode" CHECK ("connections"."sslmode" in ('disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full')),
	CONSTRAINT "connections_membership_source" CHECK ("connections"."membership_source" in ('auto', 'manual')),
	CONSTRAINT "connections_one_owner" CHECK (("connections"."owner_username" is null) <> ("connections"."owner_token" is null))
);
--> statement-breakpoint
ALTER TABLE "collector_leases" ADD CONSTRAINT "collector_leases_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "probe_runs" ADD CONSTRAINT "probe_runs_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connections_monitored_idx" ON "connections" USING btree ("id") WHERE "connections"."is_monitored";--> statement-breakpoint
ALTER TABLE "ai_analysis_cache" ADD CONSTRAINT "ai_analysis_cache_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;