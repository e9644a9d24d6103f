import { createClusterInGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { createManualCluster } from "../../clusters/manage.js";
import { findGroup, notFound, presentCluster } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerCreateClusterInGroup(app: App): void {
  app.openapi(guarded(createClusterInGroup, { permission: "manage_connections" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { db } = c.get("services").datastore;
    if (!(await findGroup(db, id))) {
      throw new ApiError(404, notFound.group);
    }
    const caller = await c.get("access").requireCaller();
    const cluster = await createManualCluster(db, { ...body, group_id: id }, caller.username);
    return c.json(presentCluster(cluster), 201);
  });
}
