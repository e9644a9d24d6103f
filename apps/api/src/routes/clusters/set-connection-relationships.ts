import { setConnectionRelationships } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { setConnectionRelationships as replaceRelationships } from "../../clusters/relationships.js";
import { listRelationships } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerSetConnectionRelationships(app: App): void {
  app.openapi(guarded(setConnectionRelationships, { permission: "manage_connections" }), async (c) => {
    const { id, connId } = c.req.valid("param");
    const { relationships } = c.req.valid("json");
    const { db, sql } = c.get("services").datastore;
    await replaceRelationships(db, id, connId, relationships);
    return c.json(await listRelationships(sql, { clusterId: id }), 200);
  });
}
