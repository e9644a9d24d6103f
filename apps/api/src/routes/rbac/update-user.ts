import { updateUser } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { asApiError, requireUser } from "./present.js";

export function registerUpdateUser(app: App): void {
  app.openapi(guarded(updateUser, { permission: "manage_users" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { auth } = c.get("services");
    const user = await requireUser(auth, id);
    // Changing a superuser, or who is one, would let an administrator raise themselves.
    if (user.isSuperuser || body.is_superuser !== undefined) {
      await c.get("access").require({ superuser: true });
    }
    await auth.users
      .update(id, {
        password: body.password,
        displayName: body.display_name,
        email: body.email,
        annotation: body.annotation,
        enabled: body.enabled,
        isSuperuser: body.is_superuser,
      })
      .catch((error: unknown) => {
        throw asApiError(error);
      });
    return c.json({ message: "User updated" }, 200);
  });
}
