import { isatty } from "node:tty";
import { type DestinationStream, type Logger, pino } from "pino";
import { PinoPretty } from "pino-pretty";

export type { Logger };

/** `auto` writes readable lines to a terminal and JSON lines to anything else (a file, a log shipper). */
export type LogFormat = "auto" | "pretty" | "json";

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
 * The logger of the long-running commands (`serve`, `collector`, `alerter`), on stdout: JSON lines
 * through pino's own (asynchronous) destination unless readable lines are wanted.
 */
export function createServiceLogger(level: string, format: LogFormat): Logger {
  return createLogger(level, isPrettyLog(format, 1) ? prettyDestination(1) : undefined);
}

/**
 * The logger of a one-shot command (everything but the long-running `serve`, `collector` and
 * `alerter`): warnings and worse unless asked for more, on stderr, so that stdout carries only the
 * command's output (one JSON document with `--json`). Written synchronously: commands exit at once.
 */
export function createCommandLogger(level: string, format: LogFormat): Logger {
  return createLogger(
    level === "info" ? "warn" : level,
    isPrettyLog(format, 2) ? prettyDestination(2) : pino.destination({ fd: 2, sync: true }),
  );
}

/** Whether lines for `fd` are written for a person: asked for, or `auto` and `fd` is a terminal. */
function isPrettyLog(format: LogFormat, fd: 1 | 2): boolean {
  return format === "pretty" || (format === "auto" && isatty(fd));
}

/**
 * Readable lines from pino-pretty (the pino project's own formatter): one line per entry with the
 * time, the level, the message and the entry's fields; colours only on a terminal. Written
 * synchronously, so the last lines before an exit are never lost.
 */
function prettyDestination(fd: 1 | 2): DestinationStream {
  return PinoPretty({
    destination: fd,
    sync: true,
    colorize: isatty(fd),
    singleLine: true,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname,name",
  });
}
