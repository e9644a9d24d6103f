import type { Datastore } from "@dbmon/datastore";
import type { Config } from "./config.js";
import type { Logger } from "./logger.js";

/** Supplies the current time; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Everything a handler may use, handed to `createApp` and reached through the Hono context. */
export interface Services {
  config: Config;
  datastore: Datastore;
  logger: Logger;
  clock: Clock;
}

export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
  };
}
