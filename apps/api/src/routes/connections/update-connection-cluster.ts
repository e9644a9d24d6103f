import { updateConnectionCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { changeMembership, connectionClusterInfo } from "../../clusters/membership.js";
import type { App } from "../../http/app-type.js";

export function registerUpdateConnectionCluster(app: App): void {
  app.openapi(
    guarded(updateConnectionCluster, {
      permission: "manage_connections",
      connection: { param: "id", level: "read" },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { sql } = c.get("services").datastore;
      await changeMembership(sql, id, c.req.valid("json"));
      return c.json(await connectionClusterInfo(sql, id), 200);
    },
  );
}
