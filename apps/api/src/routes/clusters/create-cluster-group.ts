import { createClusterGroup } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { guarded } from "../../auth/guard.js";
import { isUniqueViolation, presentGroup } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerCreateClusterGroup(app: App): void {
  app.openapi(guarded(createClusterGroup, { permission: "manage_connections" }), async (c) => {
    const { name, description } = c.req.valid("json");
    const caller = await c.get("access").requireCaller();
    const [group] = await c
      .get("services")
      .datastore.db.insert(schema.clusterGroups)
      .values({ name, description: description ?? null, ownerUsername: caller.username })
      .returning()
      .catch((error: unknown) => {
        throw isUniqueViolation(error)
          ? new ApiError(409, "A cluster group with this name already exists")
          : error;
      });
    if (!group) {
      throw new Error("insert returned nothing");
    }
    return c.json(presentGroup(group), 201);
  });
}
