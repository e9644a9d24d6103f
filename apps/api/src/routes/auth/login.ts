import { login } from "@dbmon/contract";
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../../auth/access.js";
import { clientAddress } from "../../auth/client-address.js";
import { implement } from "../../http/operations.js";
import type { AppEnv } from "../../services.js";

export const loginHandler = implement(login, async (c) => {
  const { username, password } = c.req.valid("json");
  const { auth } = c.get("services");
  const { token, expiresAt } = await auth.login(username, password, clientAddress(c, auth.isTrustedProxy));
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: overHttps(c),
    expires: expiresAt,
  });
  return c.json(
    {
      success: true,
      session_token: token,
      expires_at: expiresAt.toISOString(),
      message: "Authentication successful",
    },
    200,
  );
});

/** The cookie is marked Secure when the request reached us, or the proxy in front, over HTTPS. */
export function overHttps(c: Context<AppEnv>): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}
