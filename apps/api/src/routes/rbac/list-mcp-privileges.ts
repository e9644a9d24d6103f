import { listMcpPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListMcpPrivileges(app: App): void {
  app.openapi(guarded(listMcpPrivileges, { permission: "manage_permissions" }), async (c) => {
    const items = await c.get("services").auth.scopes.mcpItems();
    return c.json(
      items.map((item) => ({
        id: item.id,
        identifier: item.identifier,
        item_type: item.itemType as "tool" | "resource" | "prompt",
        description: item.description,
        is_public: item.isPublic,
        created_at: item.createdAt.toISOString(),
      })),
      200,
    );
  });
}
