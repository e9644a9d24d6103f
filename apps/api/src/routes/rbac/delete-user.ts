import { deleteUser } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireUser } from "./present.js";

export function registerDeleteUser(app: App): void {
  app.openapi(guarded(deleteUser, { permission: "manage_users" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    const user = await requireUser(auth, id);
    if (user.isSuperuser) {
      await c.get("access").require({ superuser: true });
    }
    await auth.users.delete(id);
    return c.body(null, 204);
  });
}
