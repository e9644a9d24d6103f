import { type Datastore, openDatastore } from "@dbmon/datastore";
import { createTestDatabase, type TestDatabase } from "@dbmon/testing";
import { createApp } from "../src/app.js";
import { type Config, loadConfig } from "../src/config.js";
import type { App } from "../src/http/app-type.js";
import { createLogger } from "../src/logger.js";
import type { Clock, Services } from "../src/services.js";

export interface TestApp {
  app: App;
  services: Services;
  datastore: Datastore;
  database: TestDatabase;
  /** Log lines the app wrote, parsed. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
}

/** An app on a fresh database of its own, with captured logs. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
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
  const config: Config = { ...loadConfig({}), databaseUrl: database.url, ...options.config };
  const services: Services = { config, datastore, logger, clock: options.clock ?? { now: () => new Date() } };
  return {
    app: createApp(services),
    services,
    datastore,
    database,
    logs,
    async close() {
      await datastore.close();
      await database.drop();
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
