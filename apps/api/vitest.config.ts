import { dbmonProject } from "@dbmon/vitest-config";
import { mergeConfig } from "vitest/config";

// Every test file fails when an app of its answered a status its operation does not declare.
export default mergeConfig(dbmonProject("api"), { test: { setupFiles: ["./test/setup.ts"] } });
