import { deleteGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteGroup(app: App): void {
  app.openapi(guarded(deleteGroup, { permission: "manage_groups" }), async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.get("services").auth.groups.delete(id))) {
      throw new ApiError(404, "Group not found");
    }
    return c.body(null, 204);
  });
}
