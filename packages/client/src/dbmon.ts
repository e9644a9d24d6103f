import { type ClientOptions, createClient, type DbmonClient, type ResultStyle } from "./client.js";
import { type Resources, resourceTable } from "./generated/resources.js";
import type { Endpoint } from "./types.js";

/** The client with a method for every operation: `dbmon.serverInfo.get({ connection_id: 1 })`. */
export type Dbmon<S extends ResultStyle = "throw"> = DbmonClient<S> & Resources<S>;

type Flat = Record<string, unknown> & { body?: unknown };

/** Sorts a method's flat input into path parameters, query and body. */
export function structure(endpoint: Endpoint, input: Flat = {}) {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const target = endpoint.pathParams.includes(name)
      ? params
      : endpoint.queryParams.includes(name)
        ? query
        : rest;
    target[name] = value;
  }
  const body = endpoint.body === 2 ? input.body : endpoint.body === 1 ? rest : undefined;
  return { params, query, body };
}

/** Creates a dbmon client: the transport of `createClient` plus every operation as a method. */
export function createDbmon<S extends ResultStyle = "throw">(options: ClientOptions<S>): Dbmon<S> {
  const client = createClient(options);
  const dbmon: Record<string, unknown> = { ...client };
  for (const [groupName, methods] of Object.entries(resourceTable)) {
    const group: Record<string, unknown> = {};
    for (const [name, target] of Object.entries(methods)) {
      if (Array.isArray(target)) {
        const [endpoint, items, cap] = target as [Endpoint, string, number];
        group[name] = (input?: Flat, call?: object) => pages(client, [endpoint, items, cap], input, call);
      } else {
        const endpoint = target as Endpoint;
        group[name] = endpoint.stream
          ? (input?: Flat, call?: object) =>
              client.stream(endpoint, structure(endpoint, input), {
                reconnect: endpoint.method === "get",
                ...call,
              })
          : (input?: Flat, call?: object) =>
              client.call(endpoint as never, structure(endpoint, input) as never, call);
      }
    }
    dbmon[groupName] = group;
  }
  return dbmon as unknown as Dbmon<S>;
}

/**
 * Every item of a paged list, following the server's paging: pages of `limit` items, never more
 * than the list's cap (the server cuts a larger page to it, so a page shorter than asked for would
 * otherwise look like the last), until a short page or, where the answer has one, its `total`.
 */
async function* pages(
  client: DbmonClient<ResultStyle>,
  [endpoint, items, cap]: readonly [Endpoint, string, number],
  input: Flat = {},
  call?: object,
) {
  const limit = typeof input.limit === "number" && input.limit > 0 ? Math.min(input.limit, cap) : cap;
  for (let offset = 0; ; ) {
    const { data } = await client.request(endpoint, structure(endpoint, { ...input, limit, offset }), call);
    const answer = data as Record<string, unknown>;
    const page = (answer[items] as unknown[] | undefined) ?? [];
    yield* page;
    offset += page.length;
    const total = typeof answer.total === "number" ? answer.total : undefined;
    if (page.length < limit || (total !== undefined && offset >= total)) {
      return;
    }
  }
}
