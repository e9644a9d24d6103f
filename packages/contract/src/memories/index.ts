import { deleteMemory } from "./delete-memory.js";
import { listMemories } from "./list-memories.js";
import { updateMemoryPinned } from "./update-memory-pinned.js";

export * from "./delete-memory.js";
export * from "./list-memories.js";
export * from "./schemas.js";
export * from "./update-memory-pinned.js";

export const memoriesOperations = [listMemories, updateMemoryPinned, deleteMemory] as const;
