import { randomBytes } from "node:crypto";
import { type Datastore, openDatastore, type SecretKey } from "@dbmon/datastore";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { createOutboundHostPolicy } from "@dbmon/monitoring";
import { type AlerterOptions, type RunningAlerter, silentAlerterLogger, startAlerter } from "../index.js";

// Test support for the alerter's own tests and for end-to-end tests elsewhere (collector to alert),
// as `@dbmon/alerter/testing`; never imported by the alerter itself.

export interface Harness {
  database: TestDatabase;
  datastore: Datastore;
  secretKey: SecretKey;
  clock: { now(): Date; set(date: Date): void; advance(seconds: number): void };
  /** An alerter on the harness clock that evaluates only when told (cooldown and anomalies tunable). */
  alerter(options?: Pick<AlerterOptions, "cooldownSeconds" | "anomaly">): RunningAlerter;
  close(): Promise<void>;
}

/** A datastore of its own, a controllable clock and alerters that run only when the test says so. */
export async function createHarness(): Promise<Harness> {
  const database = await createTestDatabase();
  const datastore = await openDatastore({
    databaseUrl: database.url,
    dataDir: "",
    migrate: false,
    maxConnections: 6,
  });
  const secretKey = randomBytes(32) as SecretKey;
  let current = new Date();
  const clock = {
    now: () => current,
    set: (date: Date) => {
      current = date;
    },
    advance: (seconds: number) => {
      current = new Date(current.getTime() + seconds * 1000);
    },
  };
  const alerters: RunningAlerter[] = [];
  return {
    database,
    datastore,
    secretKey,
    clock,
    alerter(options = {}) {
      const alerter = startAlerter({
        ...options,
        datastore,
        logger: silentAlerterLogger,
        secretKey,
        clock,
        hosts: createOutboundHostPolicy({ allowed: "127.0.0.1,localhost" }),
        timers: false,
      });
      alerters.push(alerter);
      return alerter;
    },
    async close() {
      await Promise.all(alerters.map((a) => a.stop()));
      await datastore.close();
      await database.drop();
    },
  };
}
