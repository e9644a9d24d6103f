import { conversationOperations } from "./conversations/index.js";
import { llmOperations } from "./llm/index.js";
import type { Operation } from "./operation.js";
import { serverInfoOperations } from "./server-info/index.js";
import { utilityOperations } from "./utilities/index.js";

/** Every operation of the contract, resource by resource. The API implements each one exactly once. */
export const allOperations: readonly Operation[] = [
  ...utilityOperations,
  ...serverInfoOperations,
  ...conversationOperations,
  ...llmOperations,
];
