import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AlerterOptions, type RunningAlerter, silentAlerterLogger, startAlerter } from "@dbmon/alerter";
import { type CallOptions, createClient, type StructuredInput } from "@dbmon/client";
import type { Operation } from "@dbmon/contract";
import { type Datastore, openDatastore } from "@dbmon/datastore";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { serve } from "@hono/node-server";
import type { z } from "zod";
import { createApp } from "../src/app.js";
import type { AdminPermission } from "../src/auth/model.js";
import type { ConnectionCatalog, ConnectionInfo } from "../src/auth/privileges.js";
import type { Clock } from "../src/clock.js";
import { type Config, loadConfig } from "../src/config.js";
import { createServices } from "../src/create-services.js";
import type { App } from "../src/http/app-type.js";
import { createLogger } from "../src/logger.js";
import type { Services } from "../src/services.js";
import type { Args, InputOf, ResponseOf } from "./contract-types.js";
import { undeclaredStatuses } from "./undeclared-statuses.js";

export interface TestApp {
  app: App;
  services: Services;
  datastore: Datastore;
  database: TestDatabase;
  /** Log lines the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** Connections the authorization layer knows about; tests add to it. */
  connections: ConnectionInfo[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
  /** Reuse this database (a second API instance on the same datastore) instead of a fresh one. */
  database?: TestDatabase;
}

/** Every test password: long enough and not common. */
export const TEST_PASSWORD = "correct-horse-battery-1";

/** An app on a fresh database of its own, with captured logs. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const datastore = await openDatastore({
    databaseUrl: database.url,
    dataDir: "",
    migrate: false,
    maxConnections: 4,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("debug", {
    write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    secret: "dbmon-test-secret-passphrase",
    ...options.config,
  };
  const clock = options.clock ?? { now: () => new Date() };
  // Connections the tests register by hand, besides those in the datastore.
  const connections: ConnectionInfo[] = [];
  const extendCatalog = (stored: ConnectionCatalog): ConnectionCatalog => ({
    get: async (id) => connections.find((c) => c.id === id) ?? (await stored.get(id)),
    list: async () => [...connections, ...(await stored.list())],
  });
  const services = await createServices({ config, datastore, logger, clock, extendCatalog });
  return {
    app: createApp(services, { onUndeclaredStatus: (report) => undeclaredStatuses.push(report) }),
    services,
    datastore,
    database,
    logs,
    connections,
    async close() {
      await datastore.close();
      if (!options.database) {
        await database.drop();
      }
    },
  };
}

/** Shorthand for a JSON request against an app. */
export function requestJson(
  app: App,
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) {
    headers["content-type"] = "application/json";
  }
  if (init.token) {
    headers.authorization = `Bearer ${init.token}`;
  }
  return Promise.resolve(
    app.request(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
  );
}

export interface TestUser {
  id: number;
  username: string;
  /** A session token of the user. */
  token: string;
}

/** Creates a user directly in the datastore and logs it in through the API. */
export async function createUser(
  t: TestApp,
  username: string,
  options: { superuser?: boolean; permissions?: (AdminPermission | "*")[] } = {},
): Promise<TestUser> {
  const user = await t.services.auth.users.create({
    username,
    password: TEST_PASSWORD,
    isSuperuser: options.superuser ?? false,
  });
  if (options.permissions?.length) {
    const group = await t.services.auth.groups.create(`${username}-admins`, "");
    await t.services.auth.groups.setPermissions(group.id, options.permissions);
    await t.services.auth.groups.addMember(group.id, { userId: user.id });
  }
  return { id: user.id, username, token: await login(t, username) };
}

/** Logs in through the API and returns the session token. */
export async function login(t: TestApp, username: string, password = TEST_PASSWORD): Promise<string> {
  const res = await requestJson(t.app, "/api/v1/auth/login", {
    method: "POST",
    body: { username, password },
  });
  if (res.status !== 200) {
    throw new Error(`login of ${username} failed: ${res.status} ${await res.text()}`);
  }
  return ((await res.json()) as { session_token: string }).session_token;
}

/**
 * The typed client of `@dbmon/client`, calling the app in-process, whose every success is checked
 * against the operation in the contract (a status it declares, a body that fits that status's
 * schema): the one helper tests use to show that what the API sends is what the contract (and so
 * the OpenAPI document) promises. Refusals are thrown as the client's `DbmonApiError`s (`status`,
 * `body`); nothing is retried.
 */
export function typedClient(t: TestApp, token?: string) {
  const client = createClient({
    baseUrl: "http://dbmon.test",
    ...(token ? { token } : {}),
    fetch: (request) => t.app.request(request),
    retry: false,
  });
  return {
    async call<R extends Operation>(
      operation: R,
      ...input: Args<InputOf<R>, CallOptions>
    ): Promise<ResponseOf<R>> {
      const [structured, options] = input as [StructuredInput | undefined, CallOptions | undefined];
      const { data, response } = await client.request(operation, structured, options);
      expectMatchesContract(operation, data, response.status);
      return data as ResponseOf<R>;
    },
  };
}

/**
 * Fails unless `body` fits one of the operation's success response schemas (the one of `status`
 * when given, which must be a success status the operation declares).
 */
export function expectMatchesContract(operation: Operation, body: unknown, status?: number): void {
  const successes = Object.entries(operation.responses).filter(([code]) => code.startsWith("2"));
  const declared = status === undefined ? successes : successes.filter(([code]) => code === String(status));
  if (declared.length === 0) {
    throw new Error(`${operation.operationId}: status ${status} is not a success the contract declares`);
  }
  const schemas = declared
    .map(
      ([, response]) => (response as { content?: { "application/json"?: { schema?: z.ZodType } } }).content,
    )
    .map((content) => content?.["application/json"]?.schema)
    .filter((schema): schema is z.ZodType => schema !== undefined);
  if (schemas.length === 0) {
    return;
  }
  const problems = schemas.map((schema) => schema.safeParse(body)).filter((result) => !result.success);
  if (problems.length === schemas.length) {
    throw new Error(
      `${operation.operationId}: the body does not fit the contract: ${problems[0]?.error?.message ?? ""}`,
    );
  }
}

/** The app served over a real socket on 127.0.0.1 (keep-alive, Node's parser, real clients). */
export async function serveTestApp(
  t: TestApp,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve(started as Server),
    ) as Server;
  });
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Registers the test's own database server as a monitored connection named `name` (owned by the
 * caller of `token`), so that tools and queries have a real server to work on; returns its id.
 */
export async function registerTestServer(t: TestApp, token: string, name = "primary"): Promise<number> {
  const url = new URL(t.database.url);
  const created = await requestJson(t.app, "/api/v1/connections", {
    method: "POST",
    token,
    body: {
      name,
      host: url.hostname,
      port: Number(url.port),
      database_name: t.database.name,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password) || "unused-with-trust-auth",
      is_shared: false,
    },
  });
  if (created.status !== 201) {
    throw new Error(`registering the test server failed: ${created.status} ${await created.text()}`);
  }
  return ((await created.json()) as { id: number }).id;
}

/** An MCP tool result as the REST bridge answers it. */
export interface BridgeToolResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

/** Calls an MCP tool through POST /api/v1/mcp/tools/call, which answers 200 for tool errors too. */
export async function callBridgeTool(
  t: TestApp,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<BridgeToolResult> {
  const res = await requestJson(t.app, "/api/v1/mcp/tools/call", {
    method: "POST",
    token,
    body: { name, arguments: args },
  });
  if (res.status !== 200) {
    throw new Error(`${name}: ${res.status} ${await res.text()}`);
  }
  return (await res.json()) as BridgeToolResult;
}

/**
 * Runs `work` with an alerter on the app's datastore (no timers: the test calls evaluate() or
 * calculateBaselines() itself), then stops it.
 */
export async function withAlerter<T>(
  t: TestApp,
  work: (alerter: RunningAlerter) => Promise<T>,
  options: Partial<AlerterOptions> = {},
): Promise<T> {
  const alerter = startAlerter({
    datastore: t.datastore,
    logger: silentAlerterLogger,
    secretKey: t.services.secretKey,
    timers: false,
    ...options,
  });
  try {
    return await work(alerter);
  } finally {
    await alerter.stop();
  }
}
