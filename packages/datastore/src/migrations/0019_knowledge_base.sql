CREATE TABLE "knowledge_base_chunks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "knowledge_base_chunks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_name" text NOT NULL,
	"project_version" text NOT NULL,
	"source" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, title), 'A') || setweight(to_tsvector('english'::regconfig, content), 'B')) STORED
);
--> statement-breakpoint
CREATE INDEX "knowledge_base_chunks_search_idx" ON "knowledge_base_chunks" USING gin ("search");--> statement-breakpoint
CREATE INDEX "knowledge_base_chunks_project_name_project_version_index" ON "knowledge_base_chunks" USING btree ("project_name","project_version");