ALTER TABLE "connections" DROP CONSTRAINT "connections_one_owner";--> statement-breakpoint
-- Owners whose user is already gone lose the connection now, as the key will do from here on.
UPDATE "connections" SET "owner_username" = NULL
  WHERE "owner_username" IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM "users" WHERE "users"."username" = "connections"."owner_username");--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_owner_username_users_username_fk" FOREIGN KEY ("owner_username") REFERENCES "public"."users"("username") ON DELETE set null ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_one_owner" CHECK ("connections"."owner_username" is null or "connections"."owner_token" is null);