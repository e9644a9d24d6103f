import { listTokens } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { presentToken } from "./present.js";

export function registerListTokens(app: App): void {
  app.openapi(guarded(listTokens, { permission: "manage_token_scopes" }), async (c) => {
    const { auth } = c.get("services");
    const rows = await auth.credentials.listServiceTokens();
    const scopes = await auth.scopes.scopesOf(rows.map((row) => row.token.id));
    const tokens = await Promise.all(rows.map((row) => presentToken(auth, row, scopes.get(row.token.id))));
    return c.json({ tokens }, 200);
  });
}
