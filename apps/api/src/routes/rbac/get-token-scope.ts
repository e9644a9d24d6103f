import { getTokenScope } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { presentScope, requireToken } from "./present.js";

export function registerGetTokenScope(app: App): void {
  app.openapi(guarded(getTokenScope, { permission: "manage_token_scopes" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireToken(auth, id);
    return c.json({ token_id: id, ...(await presentScope(auth, await auth.scopes.scopeOf(id))) }, 200);
  });
}
