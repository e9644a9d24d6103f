import { defineProject } from "vitest/config";

/**
 * Test settings every workspace project shares (projects do not inherit the root config): real
 * databases and child processes on a 2-core machine need more than vitest's 5 s default. Plain
 * JavaScript because vitest loads configuration packages from node_modules without compiling them.
 *
 * @param {string} name the project's name in vitest's output
 */
export function dbmonProject(name) {
  return defineProject({ test: { name, testTimeout: 30_000, hookTimeout: 60_000 } });
}
