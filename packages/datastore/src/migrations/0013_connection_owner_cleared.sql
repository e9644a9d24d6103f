-- A connection whose owning user is deleted has no owner (superusers manage it).
ALTER TABLE "connections" DROP CONSTRAINT "connections_one_owner";--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_one_owner" CHECK ("connections"."owner_username" is null or "connections"."owner_token" is null);--> statement-breakpoint
-- Owners whose user is already gone lose their connections now, as the trigger below does from here on.
UPDATE "connections" SET "owner_username" = NULL
  WHERE "owner_username" IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM "users" WHERE "users"."username" = "connections"."owner_username");--> statement-breakpoint
-- Ownership goes by name, so it must not outlive the user: a new user of the same name would inherit
-- it. A rename carries it along. A trigger rather than a foreign key: rows written by other tools
-- (and test fixtures) may name an owner the users table never held; such a row is simply nobody's.
CREATE FUNCTION "dbmon_clear_connection_owner"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "connections" SET "owner_username" = NULL WHERE "owner_username" = OLD."username";
  ELSIF NEW."username" IS DISTINCT FROM OLD."username" THEN
    UPDATE "connections" SET "owner_username" = NEW."username" WHERE "owner_username" = OLD."username";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "connections_owner_cleared" AFTER DELETE OR UPDATE OF "username" ON "users"
  FOR EACH ROW EXECUTE FUNCTION "dbmon_clear_connection_owner"();
