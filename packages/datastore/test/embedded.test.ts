import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatastore, schema } from "../src/index.js";

describe("embedded datastore", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "dbmon-embedded-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("keeps its data across a restart", async () => {
    const first = await openDatastore({ dataDir, embeddedPort: 0 });
    expect(first.embedded).toBeDefined();
    await first.db.insert(schema.systemSettings).values({ key: "restart-check", value: { kept: true } });
    await first.close();

    const second = await openDatastore({ dataDir, embeddedPort: 0 });
    const rows = await second.db
      .select()
      .from(schema.systemSettings)
      .where(eq(schema.systemSettings.key, "restart-check"));
    await second.close();
    expect(rows.map((row) => row.value)).toEqual([{ kept: true }]);
  });

  it("keeps its generated credentials private", async () => {
    const info = await stat(join(dataDir, "embedded-credentials.json"));
    expect(info.mode & 0o077).toBe(0);
  });

  it("runs PostgreSQL 18 on loopback only", async () => {
    const store = await openDatastore({ dataDir, embeddedPort: 0 });
    const [row] = await store.sql`select current_setting('server_version_num')::int as version,
      current_setting('listen_addresses') as listen`;
    await store.close();
    expect(row?.version).toBeGreaterThanOrEqual(180000);
    expect(row?.listen).toBe("127.0.0.1");
  });

  it("leaves the process's exit code and signals to the process", async () => {
    const script = join(dataDir, "exit-code.mts");
    const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    await writeFile(
      script,
      `import { startEmbeddedServer, silentLogger } from ${JSON.stringify(entry)};
const events = ["SIGTERM", "SIGINT", "beforeExit", "exit"] as const;
const before = events.map((event) => process.listenerCount(event)).join(" ");
const server = await startEmbeddedServer({ dataDir: ${JSON.stringify(join(dataDir, "exit"))}, port: 0, logger: silentLogger });
await server.stop();
process.exitCode = 3;
console.log(before === events.map((event) => process.listenerCount(event)).join(" ") ? "unchanged" : "hooked");
`,
    );
    const result = spawnSync(process.execPath, ["--import", "tsx", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stdout.trim()).toBe("unchanged");
    expect(result.status).toBe(3);
  });

  it("is used, never stopped, by a second process while its owner lives; stopped once the owner is gone", async () => {
    const dir = join(dataDir, "shared");
    const script = join(dataDir, "owner.mts");
    const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    await writeFile(
      script,
      `import { startEmbeddedServer, silentLogger } from ${JSON.stringify(entry)};
const server = await startEmbeddedServer({ dataDir: ${JSON.stringify(dir)}, port: 0, logger: silentLogger });
console.log(server.url);
setInterval(() => {}, 1000);
`,
    );
    const owner = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const [line] = (await once(owner.stdout, "data")) as [Buffer];
      const ownerUrl = line.toString().trim();

      const second = await openDatastore({ dataDir: dir, embeddedPort: 0 });
      expect(second.embedded?.owned).toBe(false);
      expect(second.embedded?.url).toBe(ownerUrl);
      await second.ping();
      await second.close();
      // Still the owner's, still running.
      const direct = postgres(ownerUrl, { max: 1 });
      expect((await direct`select 1 as up`)[0]?.up).toBe(1);
      await direct.end();

      // The owner dies without a shutdown: its server is an orphan, stopped and replaced.
      owner.kill("SIGKILL");
      await once(owner, "exit");
      const third = await openDatastore({ dataDir: dir, embeddedPort: 0 });
      expect(third.embedded?.owned).toBe(true);
      await third.ping();
      await third.close();
    } finally {
      owner.kill("SIGKILL");
    }
  });
});
