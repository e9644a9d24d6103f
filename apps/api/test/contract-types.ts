/**
 * Request and response types of contract operations, computed from the contract's Zod schemas:
 * what the tests' typed client (`typedClient` of support.ts) takes and gives for an operation.
 * `@dbmon/client` has its own declarations, generated from the OpenAPI document.
 */

type In<S> = S extends { _zod: { input: infer I } } ? I : never;
type Out<S> = S extends { _zod: { output: infer O } } ? O : never;
type IsSchema<S> = S extends { _zod: { input: unknown } } ? true : false;
type JsonSchemaOf<T> = T extends { content: { "application/json": { schema: infer S } } } ? S : never;

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
export type InputOf<Op> = Op extends { request: infer Req }
  ? Simplify<ParamsPart<Req> & QueryPart<Req> & BodyPart<Req>>
  : object;

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<Op> = Op extends { responses: infer Rs } ? Rs : never;

/** The parsed body of an operation's successful responses (`undefined` for 204). */
export type ResponseOf<Op> = {
  [S in keyof Responses<Op>]: S extends SuccessStatus
    ? IsSchema<JsonSchemaOf<Responses<Op>[S]>> extends true
      ? Out<JsonSchemaOf<Responses<Op>[S]>>
      : undefined
    : never;
}[keyof Responses<Op>];

/** Call arguments: the input may be left out when none of its fields is required. */
export type Args<I, O> = object extends I ? [input?: I, options?: O] : [input: I, options?: O];
