CREATE TABLE "autovacuum_crossing_syncs" (
	"connection_id" integer NOT NULL,
	"database_name" text NOT NULL,
	"synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "autovacuum_crossing_syncs_connection_id_database_name_pk" PRIMARY KEY("connection_id","database_name")
);
--> statement-breakpoint
CREATE TABLE "autovacuum_crossings" (
	"connection_id" integer NOT NULL,
	"database_name" text NOT NULL,
	"schema_name" text NOT NULL,
	"relation_name" text NOT NULL,
	"crossed_at" timestamp with time zone NOT NULL,
	"vacuumed_at" timestamp with time zone,
	CONSTRAINT "autovacuum_crossings_connection_id_database_name_schema_name_relation_name_pk" PRIMARY KEY("connection_id","database_name","schema_name","relation_name")
);
--> statement-breakpoint
ALTER TABLE "autovacuum_crossing_syncs" ADD CONSTRAINT "autovacuum_crossing_syncs_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autovacuum_crossings" ADD CONSTRAINT "autovacuum_crossings_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;