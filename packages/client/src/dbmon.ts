import { type ClientOptions, createClient, type DbmonClient, type ResultStyle, structure } from "./client.js";
import { type Resources, type ResourceTable, resourceTable } from "./generated/resources.js";
import type { Endpoint } from "./types.js";

/**
 * The client with a method for every operation, by resource: `dbmon.serverInfo.get({ connection_id: 1 })`,
 * `dbmon.rbac.users.list()`. Logging in is `dbmon.auth.login()`, which keeps the session token.
 */
export type Dbmon<S extends ResultStyle = "throw"> = Omit<DbmonClient<S>, "login" | "logout"> & Resources<S>;

type Params = Record<string, unknown>;

/** Creates a dbmon client: the transport of `createClient` plus every operation as a method. */
export function createDbmon<S extends ResultStyle = "throw">(options: ClientOptions<S>): Dbmon<S> {
  const client = createClient(options);
  const { login, logout, ...transport } = client;
  const dbmon: Record<string, unknown> = { ...transport, ...methods(client, resourceTable) };
  // `auth.login` and `auth.logout` are the transport's, which keep and forget the session token.
  Object.assign(dbmon.auth as object, { login, logout });
  return dbmon as unknown as Dbmon<S>;
}

function methods(client: DbmonClient<ResultStyle>, table: ResourceTable): Record<string, unknown> {
  const group: Record<string, unknown> = {};
  for (const [name, target] of Object.entries(table)) {
    if (Array.isArray(target)) {
      const [endpoint, items, cap] = target as readonly [Endpoint, string, number];
      group[name] = (input?: Params, call?: object) => pages(client, [endpoint, items, cap], input, call);
    } else if (!("operationId" in target)) {
      group[name] = methods(client, target as ResourceTable);
    } else {
      const endpoint = target as Endpoint;
      group[name] = endpoint.stream
        ? (input?: Params, call?: object) =>
            client.stream(endpoint, structure(endpoint, input), {
              reconnect: endpoint.method === "get",
              ...call,
            })
        : takesInput(endpoint)
          ? (input?: Params, call?: object) => client.call(endpoint, input as never, call)
          : (call?: object) => client.call(endpoint, undefined as never, call);
    }
  }
  return group;
}

/** Whether an endpoint's method takes parameters; one that takes none takes its options first. */
function takesInput(endpoint: Endpoint): boolean {
  return endpoint.pathParams.length > 0 || endpoint.queryParams.length > 0 || endpoint.body !== 0;
}

/**
 * Every item of a paged list, following the server's paging: pages of `limit` items, never more
 * than the list's cap (the server cuts a larger page to it, so a page shorter than asked for would
 * otherwise look like the last), until a short page or, where the answer has one, its `total`.
 */
async function* pages(
  client: DbmonClient<ResultStyle>,
  [endpoint, items, cap]: readonly [Endpoint, string, number],
  input: Params = {},
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
