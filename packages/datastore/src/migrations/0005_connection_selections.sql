CREATE TABLE "connection_selections" (
	"credential_hash" text PRIMARY KEY NOT NULL,
	"connection_id" integer NOT NULL,
	"database_name" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "connection_selections" ADD CONSTRAINT "connection_selections_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;