import { deleteClusterRelationship } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { deleteRelationship } from "../../clusters/relationships.js";
import type { App } from "../../http/app-type.js";

export function registerDeleteClusterRelationship(app: App): void {
  app.openapi(guarded(deleteClusterRelationship, { permission: "manage_connections" }), async (c) => {
    const { id, relationshipId } = c.req.valid("param");
    await deleteRelationship(c.get("services").datastore.db, id, relationshipId);
    return c.body(null, 204);
  });
}
