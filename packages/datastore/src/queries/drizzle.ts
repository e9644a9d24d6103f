import { drizzle } from "drizzle-orm/postgres-js";
import type { Db, Sql } from "../datastore.js";
import * as schema from "../schema/index.js";

const views = new WeakMap<Sql, Db>();

/** The Drizzle view of a postgres.js client, for code that holds only the client (the alerter). */
export function drizzleOf(sql: Sql): Db {
  let db = views.get(sql);
  if (!db) {
    db = drizzle({ client: sql, schema, casing: "snake_case" });
    views.set(sql, db);
  }
  return db;
}
