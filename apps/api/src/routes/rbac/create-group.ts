import { createGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { asApiError } from "./present.js";

export function registerCreateGroup(app: App): void {
  app.openapi(guarded(createGroup, { permission: "manage_groups" }), async (c) => {
    const { name, description } = c.req.valid("json");
    const group = await c
      .get("services")
      .auth.groups.create(name, description ?? "")
      .catch((error: unknown) => {
        throw asApiError(error);
      });
    return c.json({ id: group.id, name: group.name }, 201);
  });
}
