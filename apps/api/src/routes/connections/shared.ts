import { isAllowedPort } from "@dbmon/datastore";
import { ApiError } from "../../http/errors.js";
import type { Services } from "../../services.js";

/** Refuses hosts and ports monitored connections may not point at (the SSRF guard). */
export async function checkReachable(
  services: Services,
  target: { host?: string | undefined; hostaddr?: string | undefined; port?: number | undefined },
): Promise<void> {
  for (const host of [target.host, target.hostaddr]) {
    if (host !== undefined && !(await services.hostPolicy.allows(host))) {
      throw new ApiError(400, "Invalid host");
    }
  }
  if (target.port !== undefined && !isAllowedPort(target.port)) {
    throw new ApiError(400, "Invalid port");
  }
}

/** The raw token of the request's credential: selections are kept per credential. */
export function credentialToken(credential: { kind: string; token?: string }): string {
  if (credential.kind !== "token" || !credential.token) {
    throw new ApiError(401, "Missing or invalid authentication credentials");
  }
  return credential.token;
}
