import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Service-wide settings that must be shared by every process on the datastore. */
export const systemSettings = pgTable("system_settings", {
  key: text().primaryKey(),
  value: jsonb().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
