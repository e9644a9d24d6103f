import type { App } from "./app-type.js";
import { ApiError } from "./errors.js";

/**
 * `/api/v1/server-info/` without an id is a caller's mistake, not an unknown path: authenticated
 * callers learn what is missing (spec: 400 for a missing connection id).
 */
export function registerMissingConnectionId(app: App): void {
  for (const path of ["/api/v1/server-info", "/api/v1/server-info/"]) {
    app.get(path, async (c) => {
      await c.get("access").requireCaller();
      throw new ApiError(400, "Connection ID is required");
    });
  }
}
