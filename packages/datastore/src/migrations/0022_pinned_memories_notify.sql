-- API processes keep each user's pinned memories (which every chat's system prompt carries) in
-- memory and LISTEN on dbmon_memories to drop them after a change to a pinned memory: one that is
-- or was pinned, inserted, changed or deleted (deleting a user deletes theirs). Unpinned memories
-- never reach a prompt, so their changes are not announced.
CREATE FUNCTION "dbmon_notify_pinned_memories_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dbmon_memories', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "chat_memories_notify_pinned_insert" AFTER INSERT ON "chat_memories"
  FOR EACH ROW WHEN (NEW."pinned") EXECUTE FUNCTION "dbmon_notify_pinned_memories_change"();
--> statement-breakpoint
CREATE TRIGGER "chat_memories_notify_pinned_update" AFTER UPDATE ON "chat_memories"
  FOR EACH ROW WHEN (OLD."pinned" OR NEW."pinned") EXECUTE FUNCTION "dbmon_notify_pinned_memories_change"();
--> statement-breakpoint
CREATE TRIGGER "chat_memories_notify_pinned_delete" AFTER DELETE ON "chat_memories"
  FOR EACH ROW WHEN (OLD."pinned") EXECUTE FUNCTION "dbmon_notify_pinned_memories_change"();
--> statement-breakpoint
CREATE TRIGGER "chat_memories_notify_pinned_truncate" AFTER TRUNCATE ON "chat_memories"
  FOR EACH STATEMENT EXECUTE FUNCTION "dbmon_notify_pinned_memories_change"();
