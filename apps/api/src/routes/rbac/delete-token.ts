import { deleteToken } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteToken(app: App): void {
  app.openapi(guarded(deleteToken, { permission: "manage_token_scopes" }), async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.get("services").auth.credentials.revokeServiceToken(id))) {
      throw new ApiError(404, "Token not found");
    }
    return c.body(null, 204);
  });
}
