/**
 * Failures to reach a monitored server (or one database of it): runs are skipped with exponential
 * backoff until `retryAt`, and the last failure's message is what the connection records.
 */
export class FailureBackoff {
  private consecutiveFailures = 0;
  private lastFailureAt = 0;
  private retryAt = 0;
  /** The message of the current failure; null once a run succeeded. */
  message: string | null = null;

  constructor(
    private readonly initialSeconds: number,
    private readonly maxSeconds: number,
  ) {}

  /** A run starting now would be skipped. */
  waiting(now = Date.now()): boolean {
    return now < this.retryAt;
  }

  /**
   * Records a failure of a run that started at `attemptAt`; returns the retry delay in seconds, or
   * null when the run started before the last failure (the same outage, counted once).
   */
  failed(attemptAt: number, message: string): number | null {
    this.message = message;
    if (attemptAt < this.lastFailureAt) {
      return null;
    }
    this.consecutiveFailures += 1;
    this.lastFailureAt = Date.now();
    const delaySeconds = Math.min(this.maxSeconds, this.initialSeconds * 2 ** (this.consecutiveFailures - 1));
    this.retryAt = this.lastFailureAt + delaySeconds * 1000;
    return delaySeconds;
  }

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.retryAt = 0;
    this.message = null;
  }

  get failures(): number {
    return this.consecutiveFailures;
  }
}
