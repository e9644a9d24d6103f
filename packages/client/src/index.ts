export {
  backoff,
  type CallOptions,
  type ClientOptions,
  createClient,
  type DbmonClient,
  type Fields,
  type ResponseValidator,
  type Result,
  type ResultStyle,
  type RetryOptions,
  type TokenSource,
} from "./client.js";
export { createDbmon, type Dbmon } from "./dbmon.js";
export * from "./errors.js";
export type { ChatStreamEvent, Overview, OverviewStreamEvent, StreamEventOf } from "./events.js";
export * from "./generated/endpoints.js";
export type { Resources } from "./generated/resources.js";
export type { EventStream, SseEvent, StreamOptions } from "./stream.js";
export type {
  Args,
  Endpoint,
  ErrorBodyOf,
  FlatInput,
  InputOf,
  ItemOf,
  ResponseOf,
  RouteLike,
  WrappedInput,
} from "./types.js";
