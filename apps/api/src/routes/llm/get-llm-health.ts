import { getLlmHealth } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getLlmHealthHandler = implement(getLlmHealth, async (c) =>
  c.json(await c.get("services").llmProxy.health(), 200),
);
