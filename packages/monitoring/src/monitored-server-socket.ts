import { once } from "node:events";
import { connect as connectTcp, isIP, type Socket } from "node:net";
import { type ConnectionOptions, connect as connectTls } from "node:tls";

/** Where a session goes: the driver options the connection store builds. */
export interface SocketTarget {
  host?: string | string[] | undefined;
  port?: number | number[] | undefined;
  path?: string | undefined;
  ssl?: boolean | string | ConnectionOptions | object | undefined;
}

/**
 * How many bytes a session on a monitored server may receive before it is cut. The driver assembles
 * each protocol message whole before handing it over, so one 400 MB value would be 400 MB (twice,
 * while it is assembled) in dbmon's memory before any row cap could act: counting at the socket is
 * the only place that can stop it in time.
 */
export class ReceiveBudget {
  private received = 0;
  exceeded = false;

  constructor(readonly limit: number) {}

  /** Starts a new allowance, between batches of rows. */
  reset(): void {
    this.received = 0;
  }

  /** Counts a chunk; false once the allowance is spent. */
  take(bytes: number): boolean {
    this.received += bytes;
    if (this.received > this.limit) {
      this.exceeded = true;
    }
    return !this.exceeded;
  }
}

export class ReceiveBudgetExceeded extends Error {
  constructor(limit: number) {
    super(`more than ${limit} bytes arrived at once`);
  }
}

// PostgreSQL's SSLRequest: length 8, code 1234.5679.
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

/**
 * A socket factory for the `postgres` driver's `socket` option that counts what arrives against the
 * budget and destroys the socket when it is spent. The driver would wrap a socket it is given in TLS
 * itself, out of the counter's sight, so this factory negotiates TLS (PostgreSQL's SSLRequest, then
 * the handshake) and the driver is told `ssl: false`.
 */
export function guardedSocketFactory(
  target: SocketTarget,
  budget: ReceiveBudget,
  connectTimeoutMs: number,
): () => Promise<Socket> {
  return async () => {
    const socket = await withTimeout(open(target), connectTimeoutMs);
    socket.prependListener("data", (chunk: Buffer) => {
      if (!budget.take(chunk.length)) {
        socket.destroy(new ReceiveBudgetExceeded(budget.limit));
      }
    });
    return socket;
  };
}

async function open(target: SocketTarget): Promise<Socket> {
  const host = first(target.host) ?? "localhost";
  const raw = target.path
    ? connectTcp({ path: target.path })
    : connectTcp({ host, port: first(target.port) ?? 5432 });
  try {
    await once(raw, "connect");
    const ssl = target.ssl;
    if (!ssl || target.path) {
      return raw;
    }
    raw.write(SSL_REQUEST);
    const [answer] = (await once(raw, "data")) as [Buffer];
    if (answer[0] !== 0x53) {
      if (ssl === "prefer" || ssl === "allow") {
        return raw;
      }
      throw new Error("The server does not accept SSL connections");
    }
    const options: ConnectionOptions =
      typeof ssl === "object"
        ? (ssl as ConnectionOptions)
        : ssl === true
          ? {}
          : { rejectUnauthorized: false };
    // A vetted address is connected to; the connection's host name comes with the options.
    const servername = options.servername ?? (isIP(host) ? undefined : host);
    const secure = connectTls({ ...options, socket: raw, servername });
    await once(secure, "secureConnect");
    return secure;
  } catch (error) {
    raw.destroy();
    throw error;
  }
}

function first<T>(value: T | T[] | undefined): T | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function withTimeout(opening: Promise<Socket>, ms: number): Promise<Socket> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`Could not connect within ${ms / 1000} s`));
    }, ms);
  });
  // A connection that completes after the timeout is closed rather than leaked.
  opening.then((late) => timedOut && late.destroy()).catch(() => {});
  try {
    return await Promise.race([opening, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
