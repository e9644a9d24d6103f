import { createToken } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createTokenHandler = implement(createToken, async (c) => {
  const body = c.req.valid("json");
  const annotation = body.annotation ?? "";
  const { issued, owner } = await c.get("services").rbac.tokens.create(c.get("access"), {
    ownerUsername: body.owner_username,
    annotation,
    expiresIn: body.expires_in,
  });
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
