import { updateClusterGroup } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { eq } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import {
  findGroup,
  isUniqueViolation,
  notFound,
  presentGroup,
  requireGroupWrite,
} from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpdateClusterGroup(app: App): void {
  app.openapi(guarded(updateClusterGroup, {}), async (c) => {
    const { id } = c.req.valid("param");
    const { name, description } = c.req.valid("json");
    const { db } = c.get("services").datastore;
    const group = await findGroup(db, id);
    if (!group) {
      throw new ApiError(404, notFound.group);
    }
    await requireGroupWrite(c.get("access"), group);
    const [updated] = await db
      .update(schema.clusterGroups)
      .set({ name, ...(description !== undefined ? { description } : {}), updatedAt: new Date() })
      .where(eq(schema.clusterGroups.id, id))
      .returning()
      .catch((error: unknown) => {
        throw isUniqueViolation(error)
          ? new ApiError(409, "A cluster group with this name already exists")
          : error;
      });
    if (!updated) {
      throw new ApiError(404, notFound.group);
    }
    return c.json(presentGroup(updated), 200);
  });
}
