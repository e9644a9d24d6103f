import packageJson from "../package.json" with { type: "json" };

/** The running dbmon version, as reported by /health and the command line. */
export const version: string = packageJson.version;
