import { capabilities } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerCapabilities(app: App): void {
  app.openapi(guarded(capabilities, {}), (c) => {
    const { ai, config } = c.get("services");
    return c.json({ ai_enabled: ai.enabled, max_iterations: config.llmMaxIterations }, 200);
  });
}
