import { defineProject } from "vitest/config";

/**
 * Test settings every workspace project shares (projects do not inherit the root config): real
 * databases and child processes on a 2-core machine need more than vitest's 5 s default.
 */
export function dbmonProject(name: string) {
  return defineProject({ test: { name, testTimeout: 30_000, hookTimeout: 60_000 } });
}
