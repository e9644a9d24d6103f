import { listUsers } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { presentUser } from "../../auth/users.js";
import type { App } from "../../http/app-type.js";

export function registerListUsers(app: App): void {
  app.openapi(guarded(listUsers, { permission: "manage_users" }), async (c) => {
    const users = await c.get("services").auth.users.list();
    return c.json({ users: users.map(presentUser) }, 200);
  });
}
