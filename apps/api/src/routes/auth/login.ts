import { login } from "@dbmon/contract";
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../../auth/access.js";
import { clientAddress } from "../../auth/client-address.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import type { AppEnv } from "../../services.js";

const refusals = {
  failed: [401, "Authentication failed: invalid username or password"],
  too_many_requests: [429, "Too many login requests, please try again later"],
  too_many_failures: [429, "Too many failed authentication attempts, please try again later"],
} as const;

export function registerLogin(app: App): void {
  app.openapi(login, async (c) => {
    const { username, password } = c.req.valid("json");
    const { auth } = c.get("services");
    const result = await auth.login(username, password, clientAddress(c, auth.isTrustedProxy));
    if (result.outcome !== "ok") {
      const [status, text] = refusals[result.outcome];
      throw new ApiError(status, text);
    }
    const { token, expiresAt } = result.session;
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
}

/** The cookie is marked Secure when the request reached us, or the proxy in front, over HTTPS. */
export function overHttps(c: Context<AppEnv>): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}
