import type { Memory } from "./store.js";

/** A memory as the wire (GET /memories, the MCP tools) shows it; `model_name` empty when stored without one. */
export function presentMemory(memory: Memory) {
  return {
    id: memory.id,
    username: memory.username,
    scope: memory.scope,
    category: memory.category,
    content: memory.content,
    pinned: memory.pinned,
    model_name: memory.modelName ?? "",
    created_at: memory.createdAt.toISOString(),
    updated_at: memory.updatedAt.toISOString(),
  };
}
