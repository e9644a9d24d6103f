import { updateGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { asApiError, presentGroup } from "./present.js";

export function registerUpdateGroup(app: App): void {
  app.openapi(guarded(updateGroup, { permission: "manage_groups" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { auth } = c.get("services");
    const group = await auth.groups.update(id, body).catch((error: unknown) => {
      throw asApiError(error);
    });
    return c.json(presentGroup(group, await auth.groups.memberCount(id)), 200);
  });
}
