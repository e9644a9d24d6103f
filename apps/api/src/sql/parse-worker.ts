import { parentPort } from "node:worker_threads";
import { loadModule } from "libpg-query";
import { classifySql } from "./classify.js";

/**
 * The SQL parser's thread: PostgreSQL's lexer is quadratic on some inputs (nested comment openers),
 * so parsing runs here, where the main thread can end it at its deadline (Worker.terminate) without
 * ever blocking on it. One request at a time: { id, sql, trees? } in, { id, classification } out (with the statements'
 * parse trees when asked for).
 */
await loadModule();
parentPort?.on("message", (request: { id: number; sql: string; trees?: boolean }) => {
  let reply: unknown;
  try {
    reply = { id: request.id, classification: classifySql(request.sql, { trees: request.trees === true }) };
  } catch (error) {
    // A tree too deep to walk or any other failure: reported, never a crash of the thread.
    reply = { id: request.id, failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
parentPort?.postMessage({ ready: true });
