import type { RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";

type ZodLike = z.ZodType;

type JsonSchemaOf<T> = T extends { content: { "application/json": { schema: infer S } } } ? S : never;

type ParamsPart<Req> = Req extends { params: infer P extends ZodLike } ? { params: z.input<P> } : object;
type QueryPart<Req> = Req extends { query: infer Q extends ZodLike } ? { query?: z.input<Q> } : object;
type BodyPart<Req> = Req extends { body: infer B }
  ? JsonSchemaOf<B> extends infer S extends ZodLike
    ? { body: z.input<S> }
    : object
  : object;

type RequestOf<R> = R extends { request: infer Req }
  ? ParamsPart<Req> & QueryPart<Req> & BodyPart<Req>
  : object;

type SuccessStatus = 200 | 201 | 202 | 204;

/** The parsed body of a route's successful responses. */
export type ResponseOf<R extends RouteConfig> = {
  [S in keyof R["responses"]]: S extends SuccessStatus
    ? JsonSchemaOf<R["responses"][S]> extends infer Schema extends ZodLike
      ? z.output<Schema>
      : undefined
    : never;
}[keyof R["responses"]];

/** Input of a route: path parameters, query and JSON body, as the contract declares them. */
export type InputOf<R extends RouteConfig> = RequestOf<R>;

/** A non-2xx answer: its status and the `error` message of the body. */
export class DbmonApiError extends Error {
  override name = "DbmonApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** Base URL of the dbmon server, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A session or service token sent as `Authorization: Bearer`. */
  token?: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: (input: Request) => Response | Promise<Response>;
}

export interface DbmonClient {
  /** Calls the operation `route` of the contract and returns its typed success body. */
  call<R extends RouteConfig>(
    route: R,
    ...input: keyof InputOf<R> extends never ? [] : [InputOf<R>]
  ): Promise<ResponseOf<R>>;
}

export function createClient(options: ClientOptions): DbmonClient {
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  return {
    async call(route, ...args) {
      const input = (args[0] ?? {}) as {
        params?: Record<string, unknown>;
        query?: Record<string, unknown>;
        body?: unknown;
      };
      const url = new URL(fillPath(route.path, input.params ?? {}), options.baseUrl);
      for (const [name, value] of Object.entries(input.query ?? {})) {
        if (value !== undefined && value !== null) {
          url.searchParams.set(name, String(value));
        }
      }
      const headers = new Headers({ accept: "application/json" });
      if (options.token) {
        headers.set("authorization", `Bearer ${options.token}`);
      }
      if (input.body !== undefined) {
        headers.set("content-type", "application/json");
      }
      const response = await doFetch(
        new Request(url, {
          method: route.method.toUpperCase(),
          headers,
          body: input.body === undefined ? undefined : JSON.stringify(input.body),
        }),
      );
      const text = await response.text();
      const body: unknown = text ? JSON.parse(text) : undefined;
      if (!response.ok) {
        const message =
          body && typeof body === "object" && "error" in body
            ? String(body.error)
            : `HTTP ${response.status}`;
        throw new DbmonApiError(response.status, message, body);
      }
      return body as never;
    },
  };
}

function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      throw new Error(`missing path parameter ${name}`);
    }
    return encodeURIComponent(String(value));
  });
}
