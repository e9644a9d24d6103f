import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { type EmbeddedServer, migrateDatastore, silentLogger, startEmbeddedServer } from "../index.js";
import "./context.js";
import { databaseUrl } from "./urls.js";

/**
 * Runs once per test run: finds the PostgreSQL server (TEST_DATABASE_URL, or an embedded one
 * started here) and migrates a template database that every test file clones.
 */
export async function setup(project: TestProject) {
  let embedded: EmbeddedServer | undefined;
  let embeddedDir: string | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    embeddedDir = await mkdtemp(join(tmpdir(), "dbmon-test-pg-"));
    embedded = await startEmbeddedServer({ dataDir: embeddedDir, port: 0, logger: silentLogger });
    serverUrl = embedded.url;
  }
  const template = `dbmon_tpl_${process.pid}_${Date.now()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${template}"`);
  await migrateDatastore(databaseUrl(serverUrl, template));
  // Marked a template, so that collectors under test, which collect every database of the server
  // but templates, never hold a session on it: a clone needs the template free of sessions.
  await admin.unsafe(`alter database "${template}" is_template true`);

  project.provide("testServerUrl", serverUrl);
  project.provide("testTemplate", template);

  return async () => {
    await admin.unsafe(`alter database "${template}" is_template false`);
    await admin.unsafe(`drop database if exists "${template}" with (force)`);
    await admin.end();
    await embedded?.stop();
    if (embeddedDir) {
      await rm(embeddedDir, { recursive: true, force: true });
    }
  };
}
