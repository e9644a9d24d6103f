import { logout } from "@dbmon/contract";
import { deleteCookie, getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../../auth/access.js";
import { implement } from "../../http/operations.js";
import { overHttps } from "./login.js";

export const logoutHandler = implement(logout, async (c) => {
  const { auth } = c.get("services");
  const credential = c.get("access").credential;
  // The session in the cookie and a Bearer session token both end; a service token is unaffected
  // (endSession only deletes sessions).
  const tokens = new Set([
    getCookie(c, SESSION_COOKIE),
    credential.kind === "token" ? credential.token : undefined,
  ]);
  let ended = false;
  for (const token of tokens) {
    if (token && (await auth.credentials.endSession(token))) {
      ended = true;
    }
  }
  // Anonymous callers may log out as often as they like: that must not empty the access cache.
  c.set("accessUnchanged", !ended);
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Lax", secure: overHttps(c) });
  return c.json({ success: true, message: "Logged out successfully" }, 200);
});
