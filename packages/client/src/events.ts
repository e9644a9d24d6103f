import type { ChatResponseSchema, TokenUsageSchema } from "@dbmon/contract";
import type { SseEvent } from "./stream.js";

type Out<S> = S extends { _zod: { output: infer O } } ? O : never;

/** Events of `POST /api/v1/llm/chat/stream`: deltas and tool calls, then `done` or `error`. */
export type ChatStreamEvent =
  | SseEvent<"delta", { text: string }>
  | SseEvent<"tool_use", { id: string; name: string; input: Record<string, unknown> }>
  | SseEvent<
      "done",
      {
        stop_reason: Out<typeof ChatResponseSchema>["stop_reason"];
        token_usage?: Out<typeof TokenUsageSchema>;
      }
    >
  | SseEvent<"error", { error: string }>;

/** The estate (or scope) overview each `overview` event of `GET /api/v1/overview/stream` carries. */
export interface Overview {
  summary: string | null;
  generated_at: string;
  stale_at: string;
  snapshot: Record<string, unknown>;
  restart_detected?: boolean;
}

/** Events of `GET /api/v1/overview/stream`; the id is the overview's `generated_at`. */
export type OverviewStreamEvent = SseEvent<"overview", Overview>;

/** The event type of each streaming operation, by operationId. */
export interface StreamEvents {
  streamLLMChat: ChatStreamEvent;
  streamOverview: OverviewStreamEvent;
}

/** The events of a streaming operation; untyped events for one not listed above. */
export type EventOf<Id extends string> = Id extends keyof StreamEvents ? StreamEvents[Id] : SseEvent;
