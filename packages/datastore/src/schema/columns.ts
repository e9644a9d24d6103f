import { timestamp } from "drizzle-orm/pg-core";

// Column builders every table shares. Not re-exported from the schema's index: they are how tables
// are written, not part of the datastore's interface.

/** A point in time; every time the datastore keeps has a zone. */
export const timestamptz = () => timestamp({ withTimezone: true });

/** Never null: an insert that leaves it out gets the datastore's now(). */
export const nowOnInsert = () => timestamptz().notNull().defaultNow();
