import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startPrimary, type TestServer } from "./private-postgres.js";

const run = promisify(execFile);

/** A PostgreSQL 15 server of a test's own that accepts TLS, with a self-signed certificate. */
export interface TlsTestServer extends TestServer {
  /** The server's certificate (PEM), issued to `localhost` and 127.0.0.1: its own CA. */
  certificate: string;
}

/**
 * Starts a private server with `ssl = on`. The certificate and key are made with the machine's
 * openssl and handed to the `postgres` OS user, as the server demands of its key file.
 */
export async function startTlsPrimary(): Promise<TlsTestServer> {
  const dir = await mkdtemp(join(tmpdir(), "dbmon-tls-"));
  try {
    const cert = join(dir, "server.crt");
    const key = join(dir, "server.key");
    await run(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"],
        ...["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        ...["-keyout", key, "-out", cert],
      ],
      { timeout: 30_000 },
    );
    await chmod(key, 0o600);
    if (process.getuid?.() === 0) {
      const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
      await Promise.all([dir, cert, key].map((path) => chown(path, uid, gid)));
    }
    const server = await startPrimary("replica", {
      ssl: "on",
      ssl_cert_file: `'${cert}'`,
      ssl_key_file: `'${key}'`,
    });
    return {
      ...server,
      certificate: await readFile(cert, "utf8"),
      async remove() {
        await server.remove();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
