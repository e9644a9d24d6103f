import { defineConfig } from "tsup";

export default defineConfig({
  // `validate` is an entry of its own so that only clients using validation mode reach Zod.
  entry: ["src/index.ts", "src/validate.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  // Browsers and Node 20 alike.
  target: "es2022",
});
