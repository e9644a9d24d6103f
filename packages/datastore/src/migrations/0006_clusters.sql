CREATE TABLE "cluster_groups" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cluster_groups_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text,
	"owner_username" text,
	"is_shared" boolean DEFAULT true NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"auto_group_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cluster_groups_name_unique" UNIQUE("name"),
	CONSTRAINT "cluster_groups_autoGroupKey_unique" UNIQUE("auto_group_key")
);
--> statement-breakpoint
CREATE TABLE "cluster_node_relationships" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cluster_node_relationships_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"cluster_id" integer NOT NULL,
	"source_connection_id" integer NOT NULL,
	"target_connection_id" integer NOT NULL,
	"relationship_type" text NOT NULL,
	"is_auto_detected" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cluster_node_relationships_unique" UNIQUE("cluster_id","source_connection_id","target_connection_id","relationship_type"),
	CONSTRAINT "cluster_node_relationships_no_self" CHECK ("cluster_node_relationships"."source_connection_id" <> "cluster_node_relationships"."target_connection_id"),
	CONSTRAINT "cluster_node_relationships_type" CHECK ("cluster_node_relationships"."relationship_type" in ('streams_from', 'subscribes_to', 'replicates_with'))
);
--> statement-breakpoint
CREATE TABLE "clusters" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "clusters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer,
	"auto_cluster_key" text,
	"name" text NOT NULL,
	"description" text,
	"replication_type" text,
	"dismissed" boolean DEFAULT false NOT NULL,
	"owner_username" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clusters_autoClusterKey_unique" UNIQUE("auto_cluster_key")
);
--> statement-breakpoint
ALTER TABLE "cluster_node_relationships" ADD CONSTRAINT "cluster_node_relationships_cluster_id_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."clusters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_node_relationships" ADD CONSTRAINT "cluster_node_relationships_source_connection_id_connections_id_fk" FOREIGN KEY ("source_connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_node_relationships" ADD CONSTRAINT "cluster_node_relationships_target_connection_id_connections_id_fk" FOREIGN KEY ("target_connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_group_id_cluster_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."cluster_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cluster_groups_single_default" ON "cluster_groups" USING btree ("is_default") WHERE "cluster_groups"."is_default";--> statement-breakpoint
CREATE INDEX "clusters_group_idx" ON "clusters" USING btree ("group_id");--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_cluster_id_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."clusters"("id") ON DELETE set null ON UPDATE no action;