import { type AnyPgColumn, bigint, integer, timestamp } from "drizzle-orm/pg-core";

// Column builders every table shares. Not re-exported from the schema's index: they are how tables
// are written, not part of the datastore's interface.

/** A point in time; every time the datastore keeps has a zone. */
export const timestamptz = () => timestamp({ withTimezone: true });

/** Never null: an insert that leaves it out gets the datastore's now(). */
export const nowOnInsert = () => timestamptz().notNull().defaultNow();

/** The id of a row people create (connections, rules, users…): an integer the datastore assigns. */
export const rowId = () => integer().primaryKey().generatedAlwaysAsIdentity();

/** The id of a row events create (alerts, notifications…): a bigint, read as a number (ids stay below 2^53). */
export const eventId = () => bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity();

/** The id of the event row this one belongs to: removing the owner removes it. */
export const ownedBy = (owner: () => AnyPgColumn) =>
  bigint({ mode: "number" }).notNull().references(owner, { onDelete: "cascade" });
