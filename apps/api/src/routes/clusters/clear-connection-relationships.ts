import { clearConnectionRelationships } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { clearConnectionRelationships as clearRelationships } from "../../clusters/relationships.js";
import type { App } from "../../http/app-type.js";

export function registerClearConnectionRelationships(app: App): void {
  app.openapi(guarded(clearConnectionRelationships, { permission: "manage_connections" }), async (c) => {
    const { id, connId } = c.req.valid("param");
    await clearRelationships(c.get("services").datastore.db, id, connId);
    return c.body(null, 204);
  });
}
