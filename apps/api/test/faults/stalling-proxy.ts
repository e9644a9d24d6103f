import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy to a PostgreSQL server that can stall: it keeps every socket open and forwards nothing
 * more, as a server behind a dead network path or a frozen VM does (no FIN, no RST, no answer).
 * `stall("queries")` lets new sessions connect and stalls each one at its first query;
 * `stall("all")` stalls everything, connection attempts included.
 */
export interface StallingProxy {
  port: number;
  stall(mode: "queries" | "all"): void;
  /** Forwards again; sessions that stalled are closed (what they lost cannot be replayed). */
  resume(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  stalled: boolean;
}

/**
 * Frontend message types that start a statement: Query, Parse. A startup, SSL or cancel request
 * starts with its length's high byte (0), never with these.
 */
const QUERY_TYPES = new Set(["Q".charCodeAt(0), "P".charCodeAt(0)]);

export async function startStallingProxy(targetPort: number): Promise<StallingProxy> {
  let mode: "none" | "queries" | "all" = "none";
  const pairs = new Set<Pair>();
  const proxy: Server = createServer((client) => {
    const server = connect(targetPort, "127.0.0.1");
    const pair: Pair = { client, server, stalled: mode === "all" };
    pairs.add(pair);
    const close = () => {
      client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    client.on("error", close).on("close", close);
    server.on("error", close).on("close", close);
    client.on("data", (chunk: Buffer) => {
      if (mode === "all") {
        pair.stalled = true;
      }
      if (mode === "queries" && QUERY_TYPES.has(chunk[0] ?? 0)) {
        pair.stalled = true;
      }
      if (!pair.stalled) {
        server.write(chunk);
      }
    });
    server.on("data", (chunk: Buffer) => {
      if (mode === "all") {
        pair.stalled = true;
      }
      if (!pair.stalled) {
        client.write(chunk);
      }
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    stall(next) {
      mode = next;
    },
    resume() {
      mode = "none";
      for (const pair of [...pairs]) {
        if (pair.stalled) {
          pair.client.destroy();
          pair.server.destroy();
          pairs.delete(pair);
        }
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      pairs.clear();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
