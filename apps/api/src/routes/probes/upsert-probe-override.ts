import { upsertProbeOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { settingsOf } from "../../probes/present.js";

export const upsertProbeOverrideHandler = implement(upsertProbeOverride, async (c) => {
  const { scope, scopeId, probeName } = c.req.valid("param");
  await c
    .get("services")
    .probes.saveOverride(c.get("access"), scope, scopeId, probeName, settingsOf(c.req.valid("json")));
  return c.json({ status: "ok" as const }, 200);
});
