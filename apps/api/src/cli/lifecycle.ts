import type { Logger } from "../logger.js";

/**
 * Runs `close` on the first SIGTERM or SIGINT, then exits: 0 when it finished cleanly. Later signals
 * are absorbed while it closes: Ctrl-C under `pnpm start` arrives twice (from the terminal, and from
 * pnpm passing it on), and the default action of the second one would end the process mid-shutdown,
 * leaving the embedded PostgreSQL running and pnpm reporting a failed command.
 */
export function closeOnSignals(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) {
      return;
    }
    closing = true;
    logger.info({ signal }, "shutting down");
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
