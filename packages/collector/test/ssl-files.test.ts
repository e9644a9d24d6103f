import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorLogger,
  MAX_SSL_FILE_BYTES,
  probeRegistry,
  type RunningCollector,
  readSslFile,
  startCollector,
} from "../src/index.js";
import { insertConnection, openTestEnvironment, type TestEnvironment, waitFor } from "./support.js";

const quiet: CollectorLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A directory standing in for DBMON_SSL_DIR, with a good file, a FIFO, a huge file and links out. */
function sslDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), "dbmon-ssl-"));
  writeFileSync(join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\n");
  writeFileSync(join(dir, "huge.pem"), Buffer.alloc(MAX_SSL_FILE_BYTES + 1, 65));
  symlinkSync("/dev/zero", join(dir, "zero.pem"));
  symlinkSync("/etc/passwd", join(dir, "outside.pem"));
  execFileSync("mkfifo", [join(dir, "fifo.pem")]);
  return dir;
}

describe("certificate and key files", () => {
  let dir: string;
  beforeAll(() => {
    dir = sslDirectory();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are read only from DBMON_SSL_DIR, as regular files within the size cap", async () => {
    const read = (path: string, directory: string | undefined = dir) =>
      readSslFile("ssl_root_cert_path", path, directory);
    expect((await read(join(dir, "ca.pem"))).toString()).toBe("-----BEGIN CERTIFICATE-----\n");
    const refused = async (path: string, reason: string, directory?: string) =>
      expect(read(path, directory ?? dir)).rejects.toThrow(`Invalid ssl_root_cert_path: ${reason}`);
    await refused("/dev/zero", "must be a file inside DBMON_SSL_DIR");
    await refused(join(dir, "zero.pem"), "must be a file inside DBMON_SSL_DIR");
    await refused(join(dir, "outside.pem"), "must be a file inside DBMON_SSL_DIR");
    await refused(join(dir, "..", "etc", "passwd"), "no such file");
    await refused(join(dir, "fifo.pem"), "not a regular file");
    await refused(join(dir, "huge.pem"), `larger than ${MAX_SSL_FILE_BYTES} bytes`);
    await refused("ca.pem", "must be an absolute path");
    await expect(read(join(dir, "ca.pem"), "")).rejects.toThrow(
      "Invalid ssl_root_cert_path: files are allowed only inside DBMON_SSL_DIR, which is not set",
    );
  });
});

describe("a connection naming /dev/zero as its root certificate", () => {
  let env: TestEnvironment;
  let collector: RunningCollector;
  let dir: string;

  beforeAll(async () => {
    env = await openTestEnvironment();
    dir = sslDirectory();
  });
  afterAll(async () => {
    await collector?.stop();
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("neither crashes nor hangs the collector's start: its error is recorded", async () => {
    const ids: Record<string, number> = {};
    for (const [name, path] of [
      ["zero", "/dev/zero"],
      ["linked-zero", join(dir, "zero.pem")],
      ["fifo", join(dir, "fifo.pem")],
    ] as const) {
      ids[name] = await insertConnection(env, { name, port: 1, database_name: "postgres" });
      await env.datastore.sql`update connections set sslmode = 'verify-full', sslrootcert = ${path}
        where id = ${ids[name] as number}`;
    }
    collector = await startCollector({
      datastore: env.datastore,
      logger: quiet,
      secretKey: env.secretKey,
      sslDirectory: dir,
      probes: probeRegistry.filter((probe) => probe.name === "pg_connectivity"),
    });
    const errorOf = async (id: number) => {
      const [row] = await env.datastore.sql<{ connection_error: string | null }[]>`
        select connection_error from connections where id = ${id}`;
      return row?.connection_error ?? undefined;
    };
    expect(await waitFor("zero's error", () => errorOf(ids.zero as number))).toBe(
      "connection error: Invalid ssl_root_cert_path: must be a file inside DBMON_SSL_DIR",
    );
    expect(await waitFor("linked zero's error", () => errorOf(ids["linked-zero"] as number))).toBe(
      "connection error: Invalid ssl_root_cert_path: must be a file inside DBMON_SSL_DIR",
    );
    expect(await waitFor("the FIFO's error", () => errorOf(ids.fifo as number))).toBe(
      "connection error: Invalid ssl_root_cert_path: not a regular file",
    );
  });
});
