import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

/** `ssl_*_path` names files only inside DBMON_SSL_DIR: regular files of at most 1 MiB. */
describe("a connection's certificate and key paths", () => {
  let t: TestApp;
  let manager: TestUser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dbmon-api-ssl-"));
    writeFileSync(join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    writeFileSync(join(dir, "huge.pem"), Buffer.alloc(1024 * 1024 + 1, 65));
    symlinkSync("/dev/zero", join(dir, "zero.pem"));
    t = await buildTestApp({ config: { sslDirectory: dir } });
    manager = await createUser(t, "manager", { permissions: ["manage_connections"] });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = {
    name: "tls",
    host: "127.0.0.1",
    port: 5432,
    database_name: "postgres",
    username: "postgres",
    password: "unused",
    ssl_mode: "verify-full",
  };
  const create = (body: Record<string, unknown>) =>
    requestJson(t.app, "/api/v1/connections", {
      method: "POST",
      token: manager.token,
      body: { ...base, ...body },
    });

  it("refuses files outside the directory, devices, links out of it and oversized files", async () => {
    for (const [field, path, reason] of [
      ["ssl_root_cert_path", "/dev/zero", "must be a file inside DBMON_SSL_DIR"],
      ["ssl_cert_path", join(dir, "zero.pem"), "must be a file inside DBMON_SSL_DIR"],
      ["ssl_key_path", "/etc/passwd", "must be a file inside DBMON_SSL_DIR"],
      ["ssl_root_cert_path", join(dir, "huge.pem"), "larger than 1048576 bytes"],
      ["ssl_root_cert_path", join(dir, "missing.pem"), "no such file"],
    ]) {
      const res = await create({ [field as string]: path });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: `Invalid ${field}: ${reason}` });
    }
    const created = await create({ ssl_root_cert_path: join(dir, "ca.pem") });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const changed = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "PUT",
      token: manager.token,
      // A new trusted CA needs the password again (secret-destinations.test.ts); the file is judged after.
      body: { ssl_root_cert_path: "/dev/zero", password: "unused" },
    });
    expect(changed.status).toBe(400);
    expect(await changed.json()).toEqual({
      error: "Invalid ssl_root_cert_path: must be a file inside DBMON_SSL_DIR",
    });
  });

  it("are refused altogether without DBMON_SSL_DIR", async () => {
    const other = await buildTestApp({ database: t.database, config: { sslDirectory: undefined } });
    try {
      const res = await requestJson(other.app, "/api/v1/connections", {
        method: "POST",
        token: manager.token,
        body: { ...base, ssl_root_cert_path: join(dir, "ca.pem") },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: "Invalid ssl_root_cert_path: files are allowed only inside DBMON_SSL_DIR, which is not set",
      });
    } finally {
      await other.close();
    }
  });
});
