/**
 * The types every endpoint and method is written with. Nothing here exists at run time, and
 * nothing refers to Zod or the contract: the generated declarations are plain TypeScript.
 */

/** Anything routable: an endpoint of this package, or a route given by hand. */
export interface RouteLike {
  method: string;
  path: string;
  operationId?: string;
}

/** Type-level link from an endpoint to its parameters and result. */
export declare const endpointTypes: unique symbol;

/**
 * An operation as this package ships it: its route, with its path parameters under the client's
 * names (`/api/v1/connections/{connection_id}`), and its parameter names; no schemas.
 */
export interface Endpoint<Params = unknown, Result = unknown> extends RouteLike {
  operationId: string;
  /** Path parameter names. */
  pathParams: readonly string[];
  /** Query parameter names. */
  queryParams: readonly string[];
  /** 0: no body; 1: the body's fields sit beside the parameters; 2: the body is `params.body`. */
  body: 0 | 1 | 2;
  /** Answered as server-sent events. */
  stream?: true;
  readonly [endpointTypes]?: { params: Params; result: Result };
}

/** The parameters an endpoint's method takes (`undefined` when it takes none). */
export type ParamsOf<E> = E extends Endpoint<infer P, unknown> ? P : never;

/** What an endpoint answers (for a stream: one of its events). */
export type ResultOf<E> = E extends Endpoint<unknown, infer R> ? R : never;

type NonNegative<V> = V extends number ? (`${V}` extends `-${string}` ? never : V) : V;

/**
 * The parameters `I` a caller wrote, checked against `P` beyond what assignability checks: a key
 * `P` does not have, or a negative number literal in one of the `K` fields (limits, offsets), is
 * `never`, so the mistake is a type error where it was written.
 */
export type Checked<I, P, K extends PropertyKey> = I & {
  [F in Exclude<keyof I, keyof P>]: never;
} & {
  [F in keyof I as F extends K ? F : never]: NonNegative<I[F]>;
};
