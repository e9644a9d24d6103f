import type postgres from "postgres";
import { type ArrayValue, parseArrayLiteral } from "./array-literal.js";

const asText = (raw: string) => raw;
const asNumber = (raw: string) => Number(raw);
const asBoolean = (raw: string) => raw === "t";
const asDate = (raw: string) => new Date(raw);
const asJson = (raw: string): unknown => JSON.parse(raw);
const asBytes = (raw: string) => Buffer.from(raw.slice(2), "hex");

const textOf = (item: unknown) => (item instanceof Date ? item.toISOString() : String(item));
const jsonOf = (item: unknown) => JSON.stringify(item);
const bytesOf = (item: unknown) =>
  item instanceof Uint8Array ? `\\x${Buffer.from(item).toString("hex")}` : String(item);

/**
 * Built-in array types by element, read as postgres.js reads the elements themselves (int8 and
 * numeric stay strings) and written as it writes them. Their OIDs are fixed in every PostgreSQL
 * release.
 */
const ARRAY_TYPES: ReadonlyArray<
  readonly [name: string, oids: number[], parse: (raw: string) => unknown, write: (item: unknown) => string]
> = [
  // int2, int4, oid, float4, float8
  ["numberArray", [1005, 1007, 1028, 1021, 1022], asNumber, textOf],
  ["booleanArray", [1000], asBoolean, textOf],
  // date, timestamp, timestamptz
  ["dateArray", [1182, 1115, 1185], asDate, textOf],
  // json, jsonb
  ["jsonArray", [199, 3807], asJson, jsonOf],
  ["byteaArray", [1001], asBytes, bytesOf],
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
    textOf,
  ],
];

/** Writes an array parameter in PostgreSQL's text form, every element quoted. */
function serializeArray(value: unknown, write: (item: unknown) => string): string {
  if (!Array.isArray(value)) {
    return String(value);
  }
  const quote = (item: unknown): string => {
    if (item === null || item === undefined) {
      return "NULL";
    }
    if (Array.isArray(item)) {
      return serializeArray(item, write);
    }
    return `"${write(item).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  };
  return `{${value.map(quote).join(",")}}`;
}

/** The OID of `text[]`, for `sql.typed` on an array parameter whose elements the driver would mistype. */
export const TEXT_ARRAY_OID = 1009;

/**
 * Driver options for every session dbmon opens, on its datastore or on a monitored server.
 *
 * postgres.js reads pg_type on each new session to learn the array types (`fetch_types`), in a
 * promise that nothing awaits. When that query fails (statement_timeout, a backend terminated or a
 * session ended while it runs — a datastore failover or restart —, a server that answers it with
 * an error), the rejection is unhandled and Node ends the process: porsager/postgres#1192, #1205
 * and #1223, open in 3.4.9. So no dbmon session runs the lookup: each reads and writes the
 * built-in array types by their fixed OIDs instead. Arrays of other types (enums, extensions'
 * types, row types) arrive in PostgreSQL's text form, and `sql.array` cannot name an array type
 * (the driver learns the element-to-array map from the lookup): pass the array's OID to
 * `sql.typed` instead.
 */
export const DRIVER_TYPE_OPTIONS = {
  fetch_types: false,
  types: Object.fromEntries(
    ARRAY_TYPES.map(([name, oids, parse, write]) => [
      name,
      {
        to: oids[0] as number,
        from: oids,
        serialize: (value: unknown) => serializeArray(value, write),
        parse: (raw: string): ArrayValue<unknown> => parseArrayLiteral(raw, parse),
      },
    ]),
  ),
} satisfies Pick<postgres.Options<Record<string, postgres.PostgresType>>, "fetch_types" | "types">;
