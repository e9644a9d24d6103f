import { capabilities } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const capabilitiesHandler = implement(capabilities, (c) => {
  const { ai, config } = c.get("services");
  return c.json({ ai_enabled: ai.enabled, max_iterations: config.llmMaxIterations }, 200);
});
