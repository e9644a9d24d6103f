import { createUser } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { asApiError } from "./present.js";

export function registerCreateUser(app: App): void {
  app.openapi(guarded(createUser, { permission: "manage_users" }), async (c) => {
    const body = c.req.valid("json");
    if (body.is_superuser) {
      await c.get("access").require({ superuser: true });
    }
    const user = await c
      .get("services")
      .auth.users.create({
        username: body.username,
        password: body.password,
        displayName: body.display_name,
        email: body.email,
        annotation: body.annotation,
        enabled: body.enabled,
        isSuperuser: body.is_superuser,
        isServiceAccount: body.is_service_account,
      })
      .catch((error: unknown) => {
        throw asApiError(error);
      });
    return c.json({ message: "User created", id: user.id }, 201);
  });
}
