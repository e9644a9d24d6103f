import type postgres from "postgres";
import { type ArrayValue, parseArrayLiteral } from "./array-literal.js";
import { guardedSocketFactory, type ReceiveBudget, type SocketTarget } from "./monitored-server-socket.js";

const asText = (raw: string) => raw;
const asNumber = (raw: string) => Number(raw);
const asBoolean = (raw: string) => raw === "t";
const asDate = (raw: string) => new Date(raw);
const asJson = (raw: string): unknown => JSON.parse(raw);
const asBytes = (raw: string) => Buffer.from(raw.slice(2), "hex");

/**
 * Built-in array types by element, as postgres.js reads the elements themselves (int8 and numeric
 * stay strings). Their OIDs are fixed in every PostgreSQL release.
 */
const ARRAY_TYPES: ReadonlyArray<readonly [name: string, oids: number[], element: (raw: string) => unknown]> =
  [
    // int2, int4, oid, float4, float8
    ["numberArray", [1005, 1007, 1028, 1021, 1022], asNumber],
    ["booleanArray", [1000], asBoolean],
    // date, timestamp, timestamptz
    ["dateArray", [1182, 1115, 1185], asDate],
    // json, jsonb
    ["jsonArray", [199, 3807], asJson],
    ["byteaArray", [1001], asBytes],
    // text, name, varchar, bpchar, char, int8, numeric, xid, xid8, inet, cidr, macaddr, uuid,
    // interval, time, timetz, aclitem, regproc, regprocedure, regoper, regclass, regtype,
    // regnamespace, regrole, pg_lsn, tsvector, cstring
    [
      "textArray",
      [
        1009, 1003, 1015, 1014, 1002, 1016, 1231, 1011, 271, 1041, 651, 1040, 2951, 1187, 1183, 1270, 1034,
        1008, 2207, 2208, 2210, 2211, 4090, 4097, 3221, 3643, 1263,
      ],
      asText,
    ],
  ];

/** Writes an array parameter in PostgreSQL's text form, every element quoted. */
function serializeArray(value: unknown): string {
  if (!Array.isArray(value)) {
    return String(value);
  }
  const quote = (item: unknown): string => {
    if (item === null || item === undefined) {
      return "NULL";
    }
    if (Array.isArray(item)) {
      return serializeArray(item);
    }
    const text = item instanceof Date ? item.toISOString() : String(item);
    return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  };
  return `{${value.map(quote).join(",")}}`;
}

const arrayTypes = Object.fromEntries(
  ARRAY_TYPES.map(([name, oids, element]) => [
    name,
    {
      to: oids[0] as number,
      from: oids,
      serialize: serializeArray,
      parse: (raw: string): ArrayValue<unknown> => parseArrayLiteral(raw, element),
    },
  ]),
);

/**
 * Driver options for every session dbmon opens on a monitored server.
 *
 * postgres.js reads pg_type on each new session to learn the array types (`fetch_types`), in a
 * promise that nothing awaits. When that query fails (statement_timeout, a backend terminated or a
 * session ended while it runs, a server that answers it with an error), the rejection is unhandled
 * and Node ends the process: porsager/postgres#1192, #1205 and #1223, open in 3.4.9. dbmon does not
 * trust the servers it monitors, so their sessions skip the lookup and read the built-in array
 * types by their fixed OIDs instead; arrays of other types (enums, extensions' types) arrive in
 * PostgreSQL's text form. The datastore's own sessions keep the lookup: dbmon sends it array
 * parameters, which need the learnt types.
 */
export const MONITORED_SERVER_DRIVER_OPTIONS = {
  fetch_types: false,
  types: arrayTypes,
} satisfies Pick<postgres.Options<Record<string, postgres.PostgresType>>, "fetch_types" | "types">;

/**
 * The options of every session dbmon opens on a monitored server, spread over the destination's
 * own: the type handling above, and a socket that counts what arrives against `budget` and
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
    ...MONITORED_SERVER_DRIVER_OPTIONS,
    socket: guardedSocketFactory(destination, budget, connectTimeoutMs),
    ssl: false,
  };
  return options as unknown as Pick<postgres.Options<Record<string, never>>, "fetch_types" | "ssl">;
}
