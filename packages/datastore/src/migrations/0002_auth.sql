CREATE TABLE "group_admin_permissions" (
	"group_id" integer NOT NULL,
	"permission" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_admin_permissions_group_id_permission_pk" PRIMARY KEY("group_id","permission")
);
--> statement-breakpoint
CREATE TABLE "group_connection_privileges" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "group_connection_privileges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"connection_id" integer NOT NULL,
	"access_level" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_connection_privileges_level" CHECK ("group_connection_privileges"."access_level" in ('read', 'read_write')),
	CONSTRAINT "group_connection_privileges_connection" CHECK ("group_connection_privileges"."connection_id" >= 0)
);
--> statement-breakpoint
CREATE TABLE "group_mcp_privileges" (
	"group_id" integer NOT NULL,
	"identifier" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_mcp_privileges_group_id_identifier_pk" PRIMARY KEY("group_id","identifier")
);
--> statement-breakpoint
CREATE TABLE "group_memberships" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "group_memberships_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"parent_group_id" integer NOT NULL,
	"member_user_id" integer,
	"member_group_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_memberships_one_member" CHECK (num_nonnulls("group_memberships"."member_user_id", "group_memberships"."member_group_id") = 1),
	CONSTRAINT "group_memberships_not_self" CHECK ("group_memberships"."member_group_id" is distinct from "group_memberships"."parent_group_id")
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_privilege_identifiers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mcp_privilege_identifiers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"identifier" text NOT NULL,
	"item_type" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_privilege_identifiers_identifier_unique" UNIQUE("identifier")
);
--> statement-breakpoint
CREATE TABLE "rbac_groups" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rbac_groups_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rbac_groups_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "service_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "service_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"user_id" integer NOT NULL,
	"annotation" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "service_tokens_tokenHash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_admin_scopes" (
	"token_id" integer NOT NULL,
	"permission" text NOT NULL,
	CONSTRAINT "token_admin_scopes_token_id_permission_pk" PRIMARY KEY("token_id","permission")
);
--> statement-breakpoint
CREATE TABLE "token_connection_scopes" (
	"token_id" integer NOT NULL,
	"connection_id" integer NOT NULL,
	"access_level" text NOT NULL,
	CONSTRAINT "token_connection_scopes_token_id_connection_id_pk" PRIMARY KEY("token_id","connection_id"),
	CONSTRAINT "token_connection_scopes_level" CHECK ("token_connection_scopes"."access_level" in ('read', 'read_write'))
);
--> statement-breakpoint
CREATE TABLE "token_mcp_scopes" (
	"token_id" integer NOT NULL,
	"identifier" text NOT NULL,
	CONSTRAINT "token_mcp_scopes_token_id_identifier_pk" PRIMARY KEY("token_id","identifier")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"username" text NOT NULL,
	"password_hash" text,
	"display_name" text DEFAULT '' NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"annotation" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"is_superuser" boolean DEFAULT false NOT NULL,
	"is_service_account" boolean DEFAULT false NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"last_login" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_username_unique" UNIQUE("username")
);
--> statement-breakpoint
ALTER TABLE "group_admin_permissions" ADD CONSTRAINT "group_admin_permissions_group_id_rbac_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."rbac_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_connection_privileges" ADD CONSTRAINT "group_connection_privileges_group_id_rbac_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."rbac_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_mcp_privileges" ADD CONSTRAINT "group_mcp_privileges_group_id_rbac_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."rbac_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_memberships" ADD CONSTRAINT "group_memberships_parent_group_id_rbac_groups_id_fk" FOREIGN KEY ("parent_group_id") REFERENCES "public"."rbac_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_memberships" ADD CONSTRAINT "group_memberships_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_memberships" ADD CONSTRAINT "group_memberships_member_group_id_rbac_groups_id_fk" FOREIGN KEY ("member_group_id") REFERENCES "public"."rbac_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_tokens" ADD CONSTRAINT "service_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "token_admin_scopes" ADD CONSTRAINT "token_admin_scopes_token_id_service_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."service_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "token_connection_scopes" ADD CONSTRAINT "token_connection_scopes_token_id_service_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."service_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "token_mcp_scopes" ADD CONSTRAINT "token_mcp_scopes_token_id_service_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."service_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "group_connection_privileges_group_id_connection_id_index" ON "group_connection_privileges" USING btree ("group_id","connection_id");--> statement-breakpoint
CREATE UNIQUE INDEX "group_memberships_parent_group_id_member_user_id_index" ON "group_memberships" USING btree ("parent_group_id","member_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "group_memberships_parent_group_id_member_group_id_index" ON "group_memberships" USING btree ("parent_group_id","member_group_id");--> statement-breakpoint
CREATE INDEX "group_memberships_member_user_id_index" ON "group_memberships" USING btree ("member_user_id");--> statement-breakpoint
CREATE INDEX "group_memberships_member_group_id_index" ON "group_memberships" USING btree ("member_group_id");--> statement-breakpoint
CREATE INDEX "service_tokens_user_id_index" ON "service_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_user_id_index" ON "sessions" USING btree ("user_id");