import { createConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { presentConnection } from "../../connections/store.js";
import type { App } from "../../http/app-type.js";
import { checkReachable } from "./shared.js";

export function registerCreateConnection(app: App): void {
  app.openapi(guarded(createConnection, { permission: "manage_connections" }), async (c) => {
    const body = c.req.valid("json");
    const services = c.get("services");
    await checkReachable(services, body);
    const caller = await c.get("access").requireCaller();
    const row = await services.connections.create(body, caller.username);
    return c.json(presentConnection(row), 201);
  });
}
