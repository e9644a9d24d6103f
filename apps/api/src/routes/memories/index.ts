import { deleteMemoryHandler } from "./delete-memory.js";
import { listMemoriesHandler } from "./list-memories.js";
import { updateMemoryPinnedHandler } from "./update-memory-pinned.js";

export const memoriesHandlers = [listMemoriesHandler, updateMemoryPinnedHandler, deleteMemoryHandler];
