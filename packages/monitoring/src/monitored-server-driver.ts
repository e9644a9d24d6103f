import { DRIVER_TYPE_OPTIONS } from "@dbmon/datastore";
import type postgres from "postgres";
import { guardedSocketFactory, type ReceiveBudget, type SocketTarget } from "./monitored-server-socket.js";

/**
 * The options of every session dbmon opens on a monitored server, spread over the destination's
 * own: no type lookup on a new session (DRIVER_TYPE_OPTIONS: a failed lookup can end the process,
 * and dbmon does not trust the servers it monitors), and a socket that counts what arrives against `budget` and
 * negotiates TLS itself, where the count can see it (so the driver is told `ssl: false`).
 * `socket` is a documented option of the driver that its type declarations leave out, hence the
 * narrower type.
 */
export function monitoredServerSession(
  destination: SocketTarget,
  budget: ReceiveBudget,
  connectTimeoutMs: number,
): Pick<postgres.Options<Record<string, never>>, "fetch_types" | "ssl"> {
  const options = {
    ...DRIVER_TYPE_OPTIONS,
    socket: guardedSocketFactory(destination, budget, connectTimeoutMs),
    ssl: false,
  };
  return options as unknown as Pick<postgres.Options<Record<string, never>>, "fetch_types" | "ssl">;
}
