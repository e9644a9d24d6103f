import { listGroups } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { presentGroup } from "./present.js";

export function registerListGroups(app: App): void {
  app.openapi(guarded(listGroups, { permission: "manage_groups" }), async (c) => {
    const groups = await c.get("services").auth.groups.list();
    return c.json({ groups: groups.map((group) => presentGroup(group, group.memberCount)) }, 200);
  });
}
