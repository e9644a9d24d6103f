import { userInfo } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const userInfoHandler = implement(userInfo, async (c) => {
  const access = c.get("access");
  const caller = await access.caller();
  if (!caller) {
    return c.json(
      access.credential.kind === "none"
        ? { authenticated: false }
        : { authenticated: false, error: "Invalid or expired session" },
      200,
    );
  }
  const [privileges, isSuperuser] = await Promise.all([access.privileges(), access.isSuperuser()]);
  return c.json(
    {
      authenticated: true,
      username: caller.username,
      // As the credential is treated: a superuser's token narrowed by a scope is not a superuser.
      is_superuser: isSuperuser,
      admin_permissions: [...privileges.permissions],
    },
    200,
  );
});
