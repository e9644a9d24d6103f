import { z } from "zod";
import { presentMemory } from "../../memories/present.js";
import { rowIdArgument } from "../arguments.js";
import { defineTool, text, tsvOfObjects } from "../tool.js";

export const storeMemory = defineTool({
  name: "store_memory",
  privilege: "store_memory",
  description:
    'Remember a fact for later conversations: a preference of the user, a finding about their servers, a convention of their team. `category` groups memories ("preference", "server", "incident"…). Scope `user` (default) is yours alone; `system` is shared with every user and needs the store_system_memory permission. Pinned memories are given to the assistant at the start of every chat: pin only what is always relevant.',
  compactDescription: "Store a memory (user or system scope).",
  input: {
    content: z.string().min(1).max(10_000).describe("The fact to remember, self-contained"),
    category: z.string().min(1).max(100).describe("A short category"),
    scope: z.enum(["user", "system"]).default("user"),
    pinned: z.boolean().default(false).describe("Include it in every chat's system prompt"),
  },
  async run(context, args) {
    const memory = await context.services.memories.store(context.access, args);
    return text(
      `Stored memory ${memory.id} (${memory.scope} scope, category ${memory.category}${memory.pinned ? ", pinned" : ""})`,
    );
  },
});

export const recallMemories = defineTool({
  name: "recall_memories",
  privilege: "recall_memories",
  description:
    "Find stored memories relevant to a question, best match first, as TSV (id, scope, category, pinned, score, content): your own and the system-wide ones. Matching is semantic when an embedding provider is configured, full-text otherwise; pinned memories always come along. Call it when earlier conversations may hold the answer or the user's preferences matter.",
  compactDescription: "Search stored memories.",
  input: {
    query: z.string().min(1).describe("What to look for"),
    category: z.string().min(1).optional(),
    scope: z.enum(["user", "system"]).optional(),
    limit: z.number().int().min(1).max(100).default(10),
  },
  async run(context, args) {
    const caller = await context.access.requireCaller();
    const { memories } = await context.services.memories.recall(caller, args);
    const rows = memories.map((memory) => {
      const { id, scope, category, pinned, updated_at, content } = presentMemory(memory);
      return {
        id,
        scope,
        category,
        pinned,
        score: Math.round(memory.score * 10_000) / 10_000,
        updated_at,
        content,
      };
    });
    return text(tsvOfObjects(rows, "No memories found"));
  },
});

export const deleteMemory = defineTool({
  name: "delete_memory",
  privilege: "delete_memory",
  description:
    "Delete a stored memory by id (from recall_memories): one of your own, or a system memory if you have the store_system_memory permission. Use it when the user says a memory is wrong or no longer wanted.",
  compactDescription: "Delete a memory by id.",
  input: { id: rowIdArgument.describe("Memory id") },
  async run(context, args) {
    await context.services.memories.delete(context.access, args.id);
    return text(`Deleted memory ${args.id}`);
  },
});

export const memoryTools = [storeMemory, recallMemories, deleteMemory];
