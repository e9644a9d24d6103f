import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/**
 * Paths pino blanks wherever they appear in a logged object, so a secret that reaches a log call
 * by accident is still never written.
 */
export const redactedPaths = [
  "password",
  "*.password",
  "token",
  "*.token",
  "session_token",
  "*.session_token",
  "secret",
  "*.secret",
  "api_key",
  "*.api_key",
  "databaseUrl",
  "*.databaseUrl",
  "url",
  "*.url",
  "headers.authorization",
  "headers.cookie",
  "*.headers.authorization",
  "*.headers.cookie",
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      name: "dbmon",
      level,
      redact: { paths: redactedPaths, censor: "[redacted]" },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * The logger of a one-shot command (everything but the long-running `serve`, `collector` and
 * `alerter`): warnings and worse unless asked for more, on stderr, so that stdout carries only the
 * command's output (one JSON document with `--json`). Written synchronously: commands exit at once.
 */
export function createCommandLogger(level: string): Logger {
  return createLogger(level === "info" ? "warn" : level, pino.destination({ fd: 2, sync: true }));
}
