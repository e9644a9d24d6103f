import type { Command } from "commander";
import type { AuthService } from "../auth/service.js";
import { presentUser, type User } from "../auth/users.js";
import { CommandError, print, withAuth } from "./context.js";
import { readNewPassword } from "./password.js";

interface JsonOption {
  json?: boolean;
}

async function requireUser(auth: AuthService, username: string): Promise<User> {
  const user = await auth.users.byUsername(username);
  if (!user) {
    throw new CommandError(`no user named ${username}`);
  }
  return user;
}

/** dbmon user add|list|set-password|enable|disable|set-superuser */
export function registerUserCommands(program: Command): void {
  const user = program.command("user").description("manage users");

  user
    .command("add <username>")
    .description("create a user (password from --password-file, standard input or a prompt)")
    .option("--password-file <file>", "read the password from the first line of this file")
    .option("--superuser", "make the user a superuser")
    .option("--service-account", "a service account: no password, service tokens only")
    .option("--display-name <name>", "display name")
    .option("--email <address>", "email address")
    .option("--note <text>", "annotation")
    .option("--json", "print the result as JSON")
    .action(
      async (
        username: string,
        options: JsonOption & {
          passwordFile?: string;
          superuser?: boolean;
          serviceAccount?: boolean;
          displayName?: string;
          email?: string;
          note?: string;
        },
      ) => {
        const password = options.serviceAccount ? undefined : await readNewPassword(options.passwordFile);
        const created = await withAuth((auth) =>
          auth.users.create({
            username,
            password,
            isSuperuser: options.superuser,
            isServiceAccount: options.serviceAccount,
            displayName: options.displayName,
            email: options.email,
            annotation: options.note,
          }),
        );
        print(options.json, presentUser(created), `created user ${created.username} (id ${created.id})`);
      },
    );

  user
    .command("list")
    .description("list users")
    .option("--json", "print the users as JSON")
    .action(async (options: JsonOption) => {
      const users = await withAuth((auth) => auth.users.list());
      const lines = users.map(
        (u) =>
          `${String(u.id).padStart(4)}  ${u.username.padEnd(24)} ${u.enabled ? "enabled " : "disabled"}` +
          `${u.isSuperuser ? "  superuser" : ""}${u.isServiceAccount ? "  service account" : ""}`,
      );
      print(options.json, { users: users.map(presentUser) }, lines.join("\n") || "no users");
    });

  user
    .command("set-password <username>")
    .description("set a user's password (ends the user's sessions)")
    .option("--password-file <file>", "read the password from the first line of this file")
    .option("--json", "print the result as JSON")
    .action(async (username: string, options: JsonOption & { passwordFile?: string }) => {
      const password = await readNewPassword(options.passwordFile);
      await withAuth(async (auth) => {
        const found = await requireUser(auth, username);
        await auth.users.update(found.id, { password });
      });
      print(options.json, { username, password_changed: true }, `password of ${username} changed`);
    });

  for (const [name, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    user
      .command(`${name} <username>`)
      .description(
        enabled ? "enable a user (and reset its failed logins)" : "disable a user (ends its sessions)",
      )
      .option("--json", "print the result as JSON")
      .action(async (username: string, options: JsonOption) => {
        await withAuth(async (auth) =>
          auth.users.update((await requireUser(auth, username)).id, { enabled }),
        );
        print(options.json, { username, enabled }, `${username} ${enabled ? "enabled" : "disabled"}`);
      });
  }

  user
    .command("set-superuser <username>")
    .description("make a user a superuser (or, with --revoke, an ordinary user)")
    .option("--revoke", "remove the superuser flag instead")
    .option("--json", "print the result as JSON")
    .action(async (username: string, options: JsonOption & { revoke?: boolean }) => {
      const isSuperuser = !options.revoke;
      await withAuth(async (auth) =>
        auth.users.update((await requireUser(auth, username)).id, { isSuperuser }),
      );
      print(
        options.json,
        { username, is_superuser: isSuperuser },
        `${username} is ${isSuperuser ? "now" : "no longer"} a superuser`,
      );
    });
}
