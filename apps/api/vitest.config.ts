import { dbmonProject } from "@dbmon/vitest-config";
import { configDefaults, mergeConfig } from "vitest/config";

// Every test file fails when an app of its answered a status its operation does not declare. The
// fault suite (test/faults) runs on its own: `pnpm test:faults` (vitest.faults.config.ts).
export default mergeConfig(dbmonProject("api"), {
  test: { setupFiles: ["./test/setup.ts"], exclude: [...configDefaults.exclude, "test/faults/**"] },
});
