import { createToken } from "@dbmon/contract";
import { parseExpiry } from "../../auth/expiry.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { requireTokenOwner } from "./present.js";

export function registerCreateToken(app: App): void {
  app.openapi(guarded(createToken, { permission: "manage_token_scopes" }), async (c) => {
    const body = c.req.valid("json");
    const { auth, clock } = c.get("services");
    const expiry = parseExpiry(body.expires_in, clock.now());
    if ("problem" in expiry) {
      throw new ApiError(400, `Invalid expires_in: ${expiry.problem}`);
    }
    const owner = await requireTokenOwner(auth, body.owner_username);
    if (owner.isSuperuser) {
      // A token of a superuser is a superuser credential: only superusers hand those out.
      await c.get("access").require({ superuser: true });
    }
    const annotation = body.annotation ?? "";
    const issued = await auth.credentials.issueServiceToken(owner, annotation, expiry.expiresAt);
    return c.json(
      {
        token: issued.token,
        id: issued.id,
        owner: owner.username,
        annotation,
        expires_at: issued.expiresAt?.toISOString() ?? null,
        message: "Token created. Save this token securely - it will not be shown again.",
      },
      201,
    );
  });
}
