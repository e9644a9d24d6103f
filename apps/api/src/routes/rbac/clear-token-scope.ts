import { clearTokenScope } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireToken } from "./present.js";

export function registerClearTokenScope(app: App): void {
  app.openapi(guarded(clearTokenScope, { permission: "manage_token_scopes" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireToken(auth, id);
    await auth.scopes.clearScope(id);
    return c.body(null, 204);
  });
}
