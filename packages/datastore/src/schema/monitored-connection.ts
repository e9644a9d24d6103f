import { integer } from "drizzle-orm/pg-core";
import { connections } from "./connections.js";

// Apart from columns.ts because it refers to a table: connections.ts uses columns.ts itself.

/** The monitored connection a row describes; the row is deleted with the connection. */
export const monitoredConnection = () =>
  integer()
    .notNull()
    .references(() => connections.id, { onDelete: "cascade" });
