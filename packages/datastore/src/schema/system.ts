import { jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { nowOnInsert } from "./columns.js";

/** Service-wide settings that must be shared by every process on the datastore. */
export const systemSettings = pgTable("system_settings", {
  key: text().primaryKey(),
  value: jsonb().notNull(),
  updatedAt: nowOnInsert(),
});
