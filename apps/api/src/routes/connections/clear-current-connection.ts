import { clearCurrentConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { credentialToken } from "./shared.js";

export function registerClearCurrentConnection(app: App): void {
  app.openapi(guarded(clearCurrentConnection, {}), async (c) => {
    await c.get("services").connections.clearSelection(credentialToken(c.get("access").credential));
    return c.body(null, 204);
  });
}
