import type { Command } from "commander";
import { parseExpiry } from "../auth/expiry.js";
import { CommandError, print, withAuth } from "./context.js";

interface JsonOption {
  json?: boolean;
}

/** dbmon token create|list|revoke */
export function registerTokenCommands(program: Command): void {
  const token = program.command("token").description("manage service tokens");

  token
    .command("create")
    .description("create a service token and print it once")
    .requiredOption("--user <username>", "the token's owner (an enabled user)")
    .option("--expires <duration>", "lifetime: <n>h, <n>d, <n>w, <n>m, <n>y or never", "never")
    .option("--note <text>", "what the token is for", "")
    .option("--json", 'print {"id", "token", "expires_at"} as JSON')
    .action(async (options: JsonOption & { user: string; expires: string; note: string }) => {
      const expiry = parseExpiry(options.expires, new Date());
      if ("problem" in expiry) {
        throw new CommandError(`invalid --expires: ${expiry.problem}`);
      }
      const issued = await withAuth(async (auth) => {
        const owner = await auth.users.byUsername(options.user);
        if (!owner) {
          throw new CommandError(`no user named ${options.user}`);
        }
        if (!owner.enabled) {
          throw new CommandError(`${options.user} is disabled`);
        }
        return auth.credentials.issueServiceToken(owner, options.note, expiry.expiresAt);
      });
      const expiresAt = issued.expiresAt?.toISOString() ?? null;
      print(
        options.json,
        { id: issued.id, token: issued.token, expires_at: expiresAt },
        `Service token ${issued.id} for ${options.user} (expires ${expiresAt ?? "never"}).\n` +
          "Save it now: it is not stored and will not be shown again.\n\n" +
          `  ${issued.token}\n`,
      );
    });

  token
    .command("list")
    .description("list service tokens")
    .option("--json", "print the tokens as JSON")
    .action(async (options: JsonOption) => {
      const rows = await withAuth((auth) => auth.credentials.listServiceTokens());
      const tokens = rows.map(({ token: t, owner }) => ({
        id: t.id,
        owner: owner.username,
        annotation: t.annotation,
        token_prefix: t.tokenHash.slice(0, 12),
        created_at: t.createdAt.toISOString(),
        expires_at: t.expiresAt?.toISOString() ?? null,
      }));
      const lines = tokens.map(
        (t) =>
          `${String(t.id).padStart(4)}  ${t.owner.padEnd(20)} ${t.token_prefix}  expires ${t.expires_at ?? "never"}` +
          `${t.annotation ? `  ${t.annotation}` : ""}`,
      );
      print(options.json, { tokens }, lines.join("\n") || "no service tokens");
    });

  token
    .command("revoke <id>")
    .description("revoke a service token")
    .option("--json", "print the result as JSON")
    .action(async (id: string, options: JsonOption) => {
      const tokenId = Number(id);
      if (!Number.isInteger(tokenId) || tokenId <= 0) {
        throw new CommandError(`invalid token id: ${id}`);
      }
      const revoked = await withAuth((auth) => auth.credentials.revokeServiceToken(tokenId));
      if (!revoked) {
        throw new CommandError(`no service token ${tokenId}`);
      }
      print(options.json, { id: tokenId, revoked: true }, `service token ${tokenId} revoked`);
    });
}
