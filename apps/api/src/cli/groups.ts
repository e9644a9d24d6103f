import type { Command } from "commander";
import { type AccessLevel, isAdminPermission, WILDCARD } from "../auth/model.js";
import type { AuthService } from "../auth/service.js";
import { CommandError, print, withAuth } from "./context.js";

interface JsonOption {
  json?: boolean;
}

async function requireGroup(auth: AuthService, name: string) {
  const group = await auth.groups.byName(name);
  if (!group) {
    throw new CommandError(`no group named ${name}`);
  }
  return group;
}

/** dbmon group add|list|add-member|grant */
export function registerGroupCommands(program: Command): void {
  const group = program.command("group").description("manage groups and what they grant");

  group
    .command("add <name>")
    .description("create a group")
    .option("--description <text>", "description", "")
    .option("--json", "print the result as JSON")
    .action(async (name: string, options: JsonOption & { description: string }) => {
      const created = await withAuth((auth) => auth.groups.create(name, options.description));
      print(
        options.json,
        { id: created.id, name: created.name },
        `created group ${created.name} (id ${created.id})`,
      );
    });

  group
    .command("list")
    .description("list groups")
    .option("--json", "print the groups as JSON")
    .action(async (options: JsonOption) => {
      const groups = await withAuth((auth) => auth.groups.list());
      const shown = groups.map((g) => ({
        id: g.id,
        name: g.name,
        description: g.description,
        member_count: g.memberCount,
      }));
      const lines = shown.map(
        (g) => `${String(g.id).padStart(4)}  ${g.name.padEnd(24)} ${g.member_count} members`,
      );
      print(options.json, { groups: shown }, lines.join("\n") || "no groups");
    });

  group
    .command("add-member <group>")
    .description("add a user (--user) or nest a group (--group) in a group")
    .option("--user <username>", "the user to add")
    .option("--group <name>", "the group to nest")
    .option("--json", "print the result as JSON")
    .action(async (name: string, options: JsonOption & { user?: string; group?: string }) => {
      if (Boolean(options.user) === Boolean(options.group)) {
        throw new CommandError("give exactly one of --user or --group");
      }
      await withAuth(async (auth) => {
        const parent = await requireGroup(auth, name);
        let member: { userId: number } | { groupId: number };
        if (options.user) {
          const user = await auth.users.byUsername(options.user);
          if (!user) {
            throw new CommandError(`no user named ${options.user}`);
          }
          member = { userId: user.id };
        } else {
          member = { groupId: (await requireGroup(auth, options.group as string)).id };
        }
        await auth.groups.addMember(parent.id, member);
      });
      const who = options.user ? { user: options.user } : { group: options.group };
      print(options.json, { group: name, added: who }, `added ${options.user ?? options.group} to ${name}`);
    });

  group
    .command("grant <group>")
    .description("grant an admin permission, an MCP item or access to a connection to a group")
    .option("--permission <name>", "an admin permission (manage_users, ..., or *)")
    .option("--mcp <identifier>", "an MCP tool, resource or prompt (or *)")
    .option("--connection <id>", "a connection id (0 = every connection)")
    .option("--access <level>", "read or read_write (with --connection)", "read")
    .option("--json", "print the result as JSON")
    .action(
      async (
        name: string,
        options: JsonOption & { permission?: string; mcp?: string; connection?: string; access: string },
      ) => {
        const given = [options.permission, options.mcp, options.connection].filter((v) => v !== undefined);
        if (given.length !== 1) {
          throw new CommandError("give exactly one of --permission, --mcp or --connection");
        }
        const granted = await withAuth(async (auth) => {
          const target = await requireGroup(auth, name);
          if (options.permission !== undefined) {
            if (options.permission !== WILDCARD && !isAdminPermission(options.permission)) {
              throw new CommandError(`unknown permission: ${options.permission}`);
            }
            await auth.groups.grantPermission(target.id, options.permission);
            return { permission: options.permission };
          }
          if (options.mcp !== undefined) {
            const known = (await auth.scopes.mcpItems()).some((item) => item.identifier === options.mcp);
            if (options.mcp !== WILDCARD && !known) {
              throw new CommandError(`unknown MCP item: ${options.mcp}`);
            }
            await auth.groups.grantMcp(target.id, options.mcp);
            return { mcp: options.mcp };
          }
          const connectionId = Number(options.connection);
          if (!Number.isInteger(connectionId) || connectionId < 0) {
            throw new CommandError(`invalid connection id: ${options.connection}`);
          }
          if (options.access !== "read" && options.access !== "read_write") {
            throw new CommandError("--access must be read or read_write");
          }
          await auth.groups.grantConnection(target.id, connectionId, options.access as AccessLevel);
          return { connection_id: connectionId, access_level: options.access };
        });
        print(options.json, { group: name, granted }, `granted ${JSON.stringify(granted)} to ${name}`);
      },
    );
}
