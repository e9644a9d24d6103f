import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAdmin } from "../src/auth/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/logger.js";
import { startService } from "../src/server.js";
import { buildTestApp, requestJson, TEST_PASSWORD } from "./support.js";

const run = promisify(execFile);
const cli = new URL("../src/cli.ts", import.meta.url).pathname;
const tsx = new URL("../node_modules/.bin/tsx", import.meta.url).pathname;

// Each command starts a tsx process: seconds, not milliseconds.
describe("command line", { timeout: 60_000 }, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  function dbmon(args: string[], input?: string) {
    const child = run(tsx, [cli, ...args], {
      env: { ...process.env, DBMON_DATABASE_URL: database.url, DBMON_LOG_LEVEL: "error" },
    });
    child.child.stdin?.end(input ?? "");
    return child;
  }

  it("creates a user and a token whose output works as a Bearer token", async () => {
    await dbmon(["user", "add", "ci-owner", "--json"], `${TEST_PASSWORD}\n`);
    const created = await dbmon([
      "token",
      "create",
      "--user",
      "ci-owner",
      "--expires",
      "30d",
      "--note",
      "ci",
      "--json",
    ]);
    const issued = JSON.parse(created.stdout) as { id: number; token: string; expires_at: string };
    expect(Object.keys(issued).sort()).toEqual(["expires_at", "id", "token"]);
    expect(Date.parse(issued.expires_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    const t = await buildTestApp({ database });
    const info = await requestJson(t.app, "/api/v1/user/info", { token: issued.token });
    expect(await info.json()).toMatchObject({ authenticated: true, username: "ci-owner" });
    // The password typed on standard input works for a login, and is stored only hashed.
    expect(
      (
        await requestJson(t.app, "/api/v1/auth/login", {
          method: "POST",
          body: { username: "ci-owner", password: TEST_PASSWORD },
        })
      ).status,
    ).toBe(200);
    const dump = JSON.stringify(await t.datastore.sql`select * from users`);
    expect(dump).not.toContain(TEST_PASSWORD);

    const listed = JSON.parse((await dbmon(["token", "list", "--json"])).stdout) as {
      tokens: { id: number }[];
    };
    expect(listed.tokens.map((token) => token.id)).toEqual([issued.id]);
    await dbmon(["token", "revoke", String(issued.id), "--json"]);
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: issued.token })).status).toBe(401);
    await t.close();
  });

  it("sets up RBAC: groups, members and grants", async () => {
    await dbmon(["group", "add", "operators", "--json"]);
    await dbmon(["group", "add-member", "operators", "--user", "ci-owner", "--json"]);
    await dbmon(["group", "grant", "operators", "--permission", "manage_blackouts", "--json"]);
    await dbmon(["group", "grant", "operators", "--connection", "0", "--access", "read", "--json"]);
    const t = await buildTestApp({ database });
    const user = await t.services.auth.users.byUsername("ci-owner");
    const privileges = await t.services.auth.privilegesOf({
      userId: user?.id ?? 0,
      username: "ci-owner",
      isSuperuser: false,
      credential: { kind: "session" },
    });
    expect(privileges.groups).toEqual(["operators"]);
    expect([...privileges.permissions]).toEqual(["manage_blackouts"]);
    expect([...privileges.connections]).toEqual([[0, "read"]]);
    await t.close();
    const users = JSON.parse((await dbmon(["user", "list", "--json"])).stdout) as {
      users: { username: string }[];
    };
    expect(users.users.map((u) => u.username)).toEqual(["ci-owner"]);
  });

  it("refuses weak passwords and unknown users with exit status 1", async () => {
    await expect(dbmon(["user", "add", "weak"], "short\n")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("Password does not meet length requirements"),
    });
    await expect(dbmon(["token", "create", "--user", "ghost"])).rejects.toMatchObject({ code: 1 });
  });
});

describe("first start", { timeout: 30_000 }, () => {
  it("creates the superuser with a generated password, told once, that logs in", async () => {
    const database = await createTestDatabase();
    const config = { ...loadConfig({}), databaseUrl: database.url, port: 0 };
    const created: CreatedAdmin[] = [];
    const service = await startService(config, createLogger("silent"), {
      onAdminCreated: (a) => created.push(a),
    });
    expect(created).toHaveLength(1);
    const password = created[0]?.generatedPassword as string;
    expect(created[0]?.username).toBe("admin");
    expect(password.length).toBeGreaterThanOrEqual(20);
    const res = await fetch(`${service.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    });
    expect(res.status).toBe(200);
    await service.close();
    // A second start finds the user and creates nothing.
    const again = await startService(config, createLogger("silent"), {
      onAdminCreated: (a) => created.push(a),
    });
    expect(created).toHaveLength(1);
    await again.close();
    await database.drop();
  });

  it("uses DBMON_ADMIN_USERNAME and DBMON_ADMIN_PASSWORD and refuses a weak one", async () => {
    const database = await createTestDatabase();
    const base = { ...loadConfig({}), databaseUrl: database.url, port: 0, adminUsername: "chief" };
    await expect(startService({ ...base, adminPassword: "short" }, createLogger("silent"))).rejects.toThrow(
      /DBMON_ADMIN_PASSWORD is not acceptable/,
    );
    const created: CreatedAdmin[] = [];
    const service = await startService({ ...base, adminPassword: TEST_PASSWORD }, createLogger("silent"), {
      onAdminCreated: (a) => created.push(a),
    });
    expect(created).toEqual([{ username: "chief", generatedPassword: undefined }]);
    await service.close();
    await database.drop();
  });
});
