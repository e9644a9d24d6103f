export {
  backoff,
  type CallArgs,
  type CallOptions,
  type ClientOptions,
  createClient,
  type DbmonClient,
  type Fields,
  type ResponseValidator,
  type Result,
  type ResultStyle,
  type RetryOptions,
  type StructuredInput,
  type TokenSource,
} from "./client.js";
export { createDbmon, type Dbmon } from "./dbmon.js";
export * from "./errors.js";
export * from "./generated/endpoints.js";
export type { Resources, ResourceTable } from "./generated/resources.js";
export type * from "./generated/types.js";
export type { EventStream, SseEvent, StreamOptions } from "./stream.js";
export type { Checked, Endpoint, ParamsOf, ResultOf, RouteLike } from "./types.js";
