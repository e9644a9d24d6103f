import { encryptSecret, loadSecretKey } from "@dbmon/datastore";
import { createHostPolicy } from "@dbmon/monitoring";
import { describe, expect, it } from "vitest";
import { HostRefusedError, serverTarget, type TargetConnection } from "../src/index.js";

const row = (fields: Partial<TargetConnection>): TargetConnection => ({
  id: 1,
  name: "db",
  host: "db.rebind.test",
  hostaddr: null,
  port: 5432,
  database_name: "postgres",
  username: "postgres",
  password_encrypted: null,
  sslmode: "verify-full",
  sslcert: null,
  sslkey: null,
  sslrootcert: null,
  is_local: false,
  connection_error: null,
  ...fields,
});

describe("a connection's target", () => {
  it("is the vetted address, resolved and checked at every connect (DNS rebinding)", async () => {
    const key = await loadSecretKey({ secret: "target-pinning-test-secret", dataDir: "" });
    const answers = [["10.0.0.7"], ["169.254.169.254"]];
    const lookups: string[] = [];
    const hostPolicy = createHostPolicy({
      resolve: async (host) => {
        lookups.push(host);
        return answers[lookups.length - 1] ?? [];
      },
    });
    const target = await serverTarget(row({ password_encrypted: encryptSecret(key, "pw") }), {
      key,
      sslDirectory: undefined,
      hostPolicy,
    });
    // The name stays the TLS server name (SNI and the certificate check); the address is connected to.
    expect(target.ssl).toMatchObject({ servername: "db.rebind.test", rejectUnauthorized: true });
    expect(await target.address()).toBe("10.0.0.7");
    await expect(target.address()).rejects.toThrow(HostRefusedError);
    await expect(target.address()).rejects.toThrow("Invalid host: db.rebind.test is not an allowed address");
    expect(lookups).toEqual(["db.rebind.test", "db.rebind.test", "db.rebind.test"]);

    // dbmon's own datastore connection and socket directories are not subject to the policy.
    const local = await serverTarget(row({ host: "127.0.0.1", is_local: true }), {
      key,
      sslDirectory: undefined,
      hostPolicy: createHostPolicy({ blocked: "127.0.0.0/8" }),
    });
    expect(await local.address()).toBe("127.0.0.1");
    const required = await serverTarget(row({ host: "10.0.0.8", sslmode: "require" }), {
      key,
      sslDirectory: undefined,
      hostPolicy,
    });
    expect(required.ssl).toEqual({ rejectUnauthorized: false });
  });
});
