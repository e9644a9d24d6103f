import { randomBytes } from "node:crypto";
import { Conflict } from "../errors.js";
import type { AuthService } from "./service.js";

export interface CreatedAdmin {
  username: string;
  /** Set when the password was generated: it must be shown to the operator once. */
  generatedPassword: string | undefined;
}

/**
 * On a datastore without users, creates the first superuser. Several instances may start at once:
 * the one that loses the race finds the user already there and does nothing.
 */
export async function ensureFirstAdmin(
  auth: AuthService,
  username: string,
  password: string | undefined,
): Promise<CreatedAdmin | undefined> {
  if ((await auth.users.count()) > 0) {
    return undefined;
  }
  if (password !== undefined) {
    const problem = auth.users.passwordProblem(password);
    if (problem) {
      throw new Error(`DBMON_ADMIN_PASSWORD is not acceptable: ${problem}`);
    }
  }
  const chosen = password ?? randomBytes(18).toString("base64url");
  try {
    await auth.users.create({
      username,
      password: chosen,
      isSuperuser: true,
      displayName: "Administrator",
    });
  } catch (error) {
    if (error instanceof Conflict) {
      return undefined;
    }
    throw error;
  }
  return { username, generatedPassword: password === undefined ? chosen : undefined };
}
