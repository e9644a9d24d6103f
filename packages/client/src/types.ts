/**
 * Request and response types of contract operations, computed from the contract's Zod schemas
 * with types only: nothing here exists at run time.
 */

type In<S> = S extends { _zod: { input: infer I } } ? I : never;
type Out<S> = S extends { _zod: { output: infer O } } ? O : never;
type IsSchema<S> = S extends { _zod: { input: unknown } } ? true : false;
type JsonSchemaOf<T> = T extends { content: { "application/json": { schema: infer S } } } ? S : never;

/** Anything routable: a contract operation or an endpoint of this package. */
export interface RouteLike {
  method: string;
  path: string;
}

/** Type-level link from an endpoint to the contract operation it was generated from. */
export declare const operationType: unique symbol;

/** An operation as this package ships it: its route and parameter names, no schemas. */
export interface Endpoint<Op = unknown> extends RouteLike {
  operationId: string;
  /** Path parameter names. */
  pathParams: readonly string[];
  /** Query parameter names. */
  queryParams: readonly string[];
  /** 0: no body; 1: the body's fields sit beside the parameters; 2: the body is `input.body`. */
  body: 0 | 1 | 2;
  /** Answered as server-sent events. */
  stream?: true;
  readonly [operationType]?: Op;
}

type OperationOf<R> = R extends Endpoint<infer Op> ? (unknown extends Op ? R : Op) : R;

type ParamsPart<Req> = Req extends { params: infer P }
  ? IsSchema<P> extends true
    ? { params: In<P> }
    : object
  : object;
type QueryPart<Req> = Req extends { query: infer Q }
  ? IsSchema<Q> extends true
    ? { query?: In<Q> }
    : object
  : object;
/** A body the operation declares `required: false` (the request may be sent without one) is optional. */
type BodyPart<Req> = Req extends { body: infer B }
  ? IsSchema<JsonSchemaOf<B>> extends true
    ? B extends { required: false }
      ? { body?: In<JsonSchemaOf<B>> }
      : { body: In<JsonSchemaOf<B>> }
    : object
  : object;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Input of an operation: path parameters, query and JSON body, as the contract declares them. */
export type InputOf<R> =
  OperationOf<R> extends { request: infer Req }
    ? Simplify<ParamsPart<Req> & QueryPart<Req> & BodyPart<Req>>
    : object;

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<R> = OperationOf<R> extends { responses: infer Rs } ? Rs : never;

/** The parsed body of an operation's successful responses (`undefined` for 204). */
export type ResponseOf<R> = {
  [S in keyof Responses<R>]: S extends SuccessStatus
    ? IsSchema<JsonSchemaOf<Responses<R>[S]>> extends true
      ? Out<JsonSchemaOf<Responses<R>[S]>>
      : undefined
    : never;
}[keyof Responses<R>];

/** The body of an operation's error responses: `{ error: string }` throughout dbmon. */
export type ErrorBodyOf<R> = {
  [S in keyof Responses<R>]: S extends SuccessStatus ? never : Out<JsonSchemaOf<Responses<R>[S]>>;
}[keyof Responses<R>];

type Request<R> = OperationOf<R> extends { request: infer Req } ? Req : object;
type ParamsOf<R> = Request<R> extends { params: infer P } ? In<P> : object;
type QueryOf<R> = Request<R> extends { query: infer Q } ? In<Q> : object;
type BodyOf<R> = Request<R> extends { body: infer B } ? In<JsonSchemaOf<B>> : never;

/** Input of a resource method: parameters and the body's fields side by side. */
export type FlatInput<R> = Simplify<
  ParamsOf<R> & QueryOf<R> & ([BodyOf<R>] extends [never] ? object : BodyOf<R>)
>;

/** Input of a resource method whose body is not an object of its own fields: `{ ...params, body }`. */
export type WrappedInput<R> = Simplify<ParamsOf<R> & QueryOf<R> & { body: BodyOf<R> }>;

/** The element type of the array a paged list answers with, under `key`. */
export type ItemOf<R, K extends string> =
  ResponseOf<R> extends { [P in K]: readonly (infer T)[] } ? T : never;

/** Method arguments: the input may be left out when none of its fields is required. */
export type Args<I, O> = object extends I ? [input?: I, options?: O] : [input: I, options?: O];
