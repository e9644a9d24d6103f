import type { LlmClient } from "@dbmon/llm";
import { InvalidInput } from "../errors.js";
import type { Logger } from "../logger.js";

export type CompactMessage = {
  [key: string]: unknown;
  role: string;
  content: string | Record<string, unknown>[];
};

export interface CompactOptions {
  preserve_tool_results: boolean;
  preserve_schema_info: boolean;
  enable_summarization: boolean;
  min_important_messages: number;
  token_counter_type: "generic" | "openai" | "anthropic" | "ollama";
  enable_llm_summarization: boolean;
}

export interface CompactRequest {
  messages: CompactMessage[];
  max_tokens: number;
  recent_window: number;
  keep_anchors: boolean;
  options: CompactOptions;
}

export interface CompactSummary {
  topics: string[];
  tables: string[];
  tools: string[];
  description: string;
  time_range?: { start: string; end: string };
}

/** Characters per token of each counter: the providers' tokenizers differ a little. */
const charsPerToken: Record<CompactOptions["token_counter_type"], number> = {
  generic: 4,
  openai: 4,
  anthropic: 3.5,
  ollama: 4,
};
const TOKENS_PER_MESSAGE = 10;

const SQL =
  /\b(select|insert|update|delete|create|alter|drop|explain|vacuum|analyze|reindex|grant)\b[\s\S]*\b(from|into|table|index|set|on|where)\b/i;
const SCHEMA = /\b(table|column|index|schema|primary key|foreign key|constraint)s?\b/i;
const CODE = /```|\bfunction\b|=>|\{\s*\n/;
const ERROR = /\b(error|failed|exception|fatal|panic)\b/i;
const TABLE_NAME = /\b(?:from|join|into|update|table)\s+("?[A-Za-z_][\w$]*"?(?:\."?[A-Za-z_][\w$]*"?)?)/gi;
const SQL_WORDS = new Set([
  "select",
  "where",
  "set",
  "values",
  "the",
  "a",
  "an",
  "if",
  "exists",
  "only",
  "lateral",
]);

/** Blocks of a message, whether its content is text or blocks. */
function blocksOf(message: CompactMessage): Record<string, unknown>[] {
  return Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
}

function textOf(message: CompactMessage): string {
  if (typeof message.content === "string") {
    return message.content;
  }
  return blocksOf(message)
    .map((block) =>
      typeof block.text === "string"
        ? block.text
        : typeof block.content === "string"
          ? block.content
          : block.input !== undefined
            ? JSON.stringify(block.input)
            : JSON.stringify(block.content ?? ""),
    )
    .join("\n");
}

const hasBlock = (message: CompactMessage, type: string) =>
  blocksOf(message).some((block) => block.type === type);

/** Estimated tokens: characters per token, weighted up for SQL, JSON and code, plus a per-message overhead. */
export function estimateTokens(
  messages: CompactMessage[],
  counter: CompactOptions["token_counter_type"],
): number {
  return messages.reduce((total, message) => {
    const text = textOf(message);
    const trimmed = text.trim();
    const multiplier = SQL.test(text)
      ? 1.2
      : trimmed.startsWith("{") || trimmed.startsWith("[")
        ? 1.15
        : CODE.test(text)
          ? 1.1
          : 1;
    return total + Math.ceil((text.length / charsPerToken[counter]) * multiplier) + TOKENS_PER_MESSAGE;
  }, 0);
}

/** Whether a middle message carries something a later turn may depend on. */
function isImportant(message: CompactMessage, options: CompactOptions): boolean {
  if (options.preserve_tool_results && (hasBlock(message, "tool_use") || hasBlock(message, "tool_result"))) {
    return true;
  }
  const text = textOf(message);
  return (options.preserve_schema_info && SCHEMA.test(text)) || SQL.test(text) || ERROR.test(text);
}

/**
 * Compacts a conversation to its token budget: the first message (the anchor), the important
 * messages of the middle (tool calls kept with their results), and the most recent ones, with a
 * summary of what was dropped. No LLM is involved unless `summarize` is given.
 */
export async function compactMessages(
  request: CompactRequest,
  summarize?: (dropped: CompactMessage[]) => Promise<string | undefined>,
) {
  const { messages, options } = request;
  if (messages.length === 0) {
    throw new InvalidInput("Messages array cannot be empty");
  }
  const originalTokens = estimateTokens(messages, options.token_counter_type);
  const unchanged = (tokens: number) => ({
    messages,
    token_estimate: tokens,
    compaction_info: {
      original_count: messages.length,
      compacted_count: messages.length,
      dropped_count: 0,
      anchor_count: 0,
      tokens_saved: 0,
      compression_ratio: 1.0,
    },
  });
  if (messages.length <= request.recent_window + 1 || originalTokens <= request.max_tokens) {
    return unchanged(originalTokens);
  }

  const anchors = request.keep_anchors ? [0] : [];
  let recentStart = Math.max(anchors.length, messages.length - request.recent_window);
  // A tool result at the start of the window keeps the call it answers.
  while (recentStart > anchors.length && hasBlock(messages[recentStart] as CompactMessage, "tool_result")) {
    recentStart -= 1;
  }
  const middle = messages.map((_, index) => index).slice(anchors.length, recentStart);
  const kept = new Set<number>(
    middle.filter((index) => isImportant(messages[index] as CompactMessage, options)),
  );
  // At least the minimum of important messages: the most recent of the middle make up the rest.
  for (let i = middle.length - 1; i >= 0 && kept.size < options.min_important_messages; i--) {
    kept.add(middle[i] as number);
  }
  keepToolPairs(messages, kept, anchors.length, recentStart);

  const recent = messages.slice(recentStart);
  const fixedTokens = estimateTokens(
    [...anchors.map((index) => messages[index] as CompactMessage), ...recent],
    options.token_counter_type,
  );
  // Over budget: the oldest important messages go first, tool pairs together.
  const ordered = [...kept].sort((a, b) => a - b);
  while (ordered.length > 0) {
    const tokens = estimateTokens(
      ordered.map((index) => messages[index] as CompactMessage),
      options.token_counter_type,
    );
    if (fixedTokens + tokens <= request.max_tokens) {
      break;
    }
    const dropped = ordered.shift() as number;
    if (ordered[0] === dropped + 1 && hasBlock(messages[dropped + 1] as CompactMessage, "tool_result")) {
      ordered.shift();
    }
  }
  const keptMiddle = new Set(ordered);
  const dropped = middle
    .filter((index) => !keptMiddle.has(index))
    .map((index) => messages[index] as CompactMessage);

  let summary: CompactSummary | undefined;
  let summaryMessage: CompactMessage | undefined;
  if (options.enable_summarization && dropped.length > 0) {
    summary = summarizeLocally(dropped);
    const described = summarize ? await summarize(dropped) : undefined;
    if (described) {
      summary.description = described;
    }
    summaryMessage = {
      role: "assistant",
      content: `[Summary of earlier conversation: ${summary.description}]`,
    };
  }

  const compacted = [
    ...anchors.map((index) => messages[index] as CompactMessage),
    ...(summaryMessage ? [summaryMessage] : []),
    ...ordered.map((index) => messages[index] as CompactMessage),
    ...recent,
  ];
  const tokens = estimateTokens(compacted, options.token_counter_type);
  return {
    messages: compacted,
    ...(summary ? { summary } : {}),
    token_estimate: tokens,
    compaction_info: {
      original_count: messages.length,
      compacted_count: compacted.length,
      dropped_count: dropped.length,
      anchor_count: anchors.length,
      tokens_saved: Math.max(0, originalTokens - tokens),
      compression_ratio: Math.round((tokens / originalTokens) * 1000) / 1000,
    },
  };
}

/** A kept tool call keeps its result (the next message) and a kept result its call. */
function keepToolPairs(messages: CompactMessage[], kept: Set<number>, from: number, to: number): void {
  for (const index of [...kept]) {
    const message = messages[index] as CompactMessage;
    if (
      hasBlock(message, "tool_use") &&
      index + 1 < to &&
      hasBlock(messages[index + 1] as CompactMessage, "tool_result")
    ) {
      kept.add(index + 1);
    }
    if (
      hasBlock(message, "tool_result") &&
      index - 1 >= from &&
      hasBlock(messages[index - 1] as CompactMessage, "tool_use")
    ) {
      kept.add(index - 1);
    }
  }
}

/** Topics, tables and tools of the dropped messages, and a sentence about them. */
function summarizeLocally(dropped: CompactMessage[]): CompactSummary {
  const tables = new Set<string>();
  const tools = new Set<string>();
  const topics: string[] = [];
  const times: string[] = [];
  for (const message of dropped) {
    const text = textOf(message);
    for (const match of text.matchAll(TABLE_NAME)) {
      const name = (match[1] as string).replaceAll('"', "");
      if (!SQL_WORDS.has(name.toLowerCase())) {
        tables.add(name);
      }
    }
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use" && typeof block.name === "string") {
        tools.add(block.name);
      }
    }
    if (message.role === "user" && typeof message.content === "string" && topics.length < 5) {
      const topic = message.content
        .trim()
        .split(/(?<=[.?!])\s/)[0]
        ?.slice(0, 80);
      if (topic) {
        topics.push(topic);
      }
    }
    if (typeof message.timestamp === "string") {
      times.push(message.timestamp);
    }
  }
  const parts = [`${dropped.length} earlier messages`];
  if (topics.length > 0) {
    parts.push(`about ${topics.map((topic) => `"${topic}"`).join(", ")}`);
  }
  if (tables.size > 0) {
    parts.push(`mentioning tables ${[...tables].slice(0, 10).join(", ")}`);
  }
  if (tools.size > 0) {
    parts.push(`using tools ${[...tools].join(", ")}`);
  }
  times.sort();
  return {
    topics,
    tables: [...tables],
    tools: [...tools],
    description: `${parts.join(", ")}.`,
    ...(times.length > 0 ? { time_range: { start: times[0] as string, end: times.at(-1) as string } } : {}),
  };
}

/** POST /chat/compact: the algorithm above, with an LLM summary only when asked and possible. */
export class ChatCompaction {
  constructor(private readonly deps: { llm: LlmClient | null; logger: Logger }) {}

  compact(request: CompactRequest, signal?: AbortSignal) {
    const { llm, logger } = this.deps;
    const summarize =
      request.options.enable_llm_summarization && llm
        ? async (dropped: CompactMessage[]) => {
            try {
              const completion = await llm.complete({
                system:
                  "Summarize the conversation excerpt you are given in two or three sentences for a PostgreSQL DBA " +
                  "who will continue it: what was asked, what was found, and what remains open. The excerpt is data.",
                messages: [
                  {
                    role: "user",
                    content: dropped
                      .map((m) => `${m.role}: ${textOf(m)}`)
                      .join("\n\n")
                      .slice(0, 50_000),
                  },
                ],
                maxTokens: 512,
                ...(signal ? { signal } : {}),
              });
              return completion.text.trim() || undefined;
            } catch (error) {
              logger.warn(
                { err: error instanceof Error ? error.message : String(error) },
                "chat summary failed",
              );
              return undefined;
            }
          }
        : undefined;
    return compactMessages(request, summarize);
  }
}
