CREATE TABLE "chat_memories" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_memories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"scope" text NOT NULL,
	"category" text NOT NULL,
	"content" text NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"model_name" text,
	"embedding" real[],
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, category || ' ' || content)) STORED,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chat_memories_scope" CHECK ("chat_memories"."scope" in ('user', 'system'))
);
--> statement-breakpoint
ALTER TABLE "chat_memories" ADD CONSTRAINT "chat_memories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_memories_user_id_updated_at_index" ON "chat_memories" USING btree ("user_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chat_memories_scope_updated_at_index" ON "chat_memories" USING btree ("scope","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chat_memories_search_idx" ON "chat_memories" USING gin ("search");