import type { Logger } from "../logger.js";

/** Runs `close` on the first SIGTERM or SIGINT, then exits: 0 when it finished cleanly. */
export function closeOnSignals(logger: Logger, close: () => Promise<void>): void {
  const stop = (signal: string) => {
    logger.info({ signal }, "shutting down");
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}
