import type { OverviewSchema, streamLlmChat, streamOverview } from "@dbmon/contract";
import type { SseEvent } from "./stream.js";

type Out<S> = S extends { _zod: { output: infer O } } ? O : never;

/** The contract's schema of one event of a streaming operation: its `text/event-stream` response's. */
type EventSchemaOf<Op> = Op extends {
  responses: { 200: { content: { "text/event-stream": { schema: infer S } } } };
}
  ? S
  : never;

/**
 * The events of a streaming operation (`typeof` its contract operation), as the contract defines
 * them: one `SseEvent` per event name, with that event's data. Types only: nothing of the contract
 * reaches the client's run time.
 */
export type StreamEventOf<Op> =
  Out<EventSchemaOf<Op>> extends infer E
    ? E extends { event: infer Name extends string; data: infer Data }
      ? SseEvent<Name, Data>
      : never
    : never;

/** Events of `POST /api/v1/llm/chat/stream`: deltas and tool calls, then `done` or `error`. */
export type ChatStreamEvent = StreamEventOf<typeof streamLlmChat>;

/** The estate (or scope) overview each `overview` event of `GET /api/v1/overview/stream` carries. */
export type Overview = Out<typeof OverviewSchema>;

/** Events of `GET /api/v1/overview/stream`; the id is the overview's `generated_at`. */
export type OverviewStreamEvent = StreamEventOf<typeof streamOverview>;
