CREATE TABLE "health_check_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "health_check_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"connection_id" integer NOT NULL,
	"check_name" text NOT NULL,
	"previous_status" text NOT NULL,
	"status" text NOT NULL,
	"value" double precision,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "health_check_changes_status" CHECK ("health_check_changes"."status" in ('ok', 'warning', 'critical', 'unknown'))
);
--> statement-breakpoint
CREATE TABLE "health_check_status" (
	"connection_id" integer NOT NULL,
	"check_name" text NOT NULL,
	"status" text NOT NULL,
	"known_status" text NOT NULL,
	"value" double precision,
	"findings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"evaluated_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "health_check_status_connection_id_check_name_pk" PRIMARY KEY("connection_id","check_name"),
	CONSTRAINT "health_check_status_status" CHECK ("health_check_status"."status" in ('ok', 'warning', 'critical', 'unknown'))
);
--> statement-breakpoint
ALTER TABLE "health_check_changes" ADD CONSTRAINT "health_check_changes_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "health_check_status" ADD CONSTRAINT "health_check_status_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "health_check_changes_connection_changed_idx" ON "health_check_changes" USING btree ("connection_id","changed_at");