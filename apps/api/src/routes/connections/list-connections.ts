import { listConnections } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { presentConnection } from "../../connections/store.js";
import type { App } from "../../http/app-type.js";

export function registerListConnections(app: App): void {
  app.openapi(guarded(listConnections, {}), async (c) => {
    const visible = await c.get("access").visibleConnections();
    const rows = await c.get("services").connections.list(visible.all ? "all" : visible.ids);
    return c.json(rows.map(presentConnection), 200);
  });
}
