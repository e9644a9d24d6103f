/** The slice of a pino logger the collector uses. */
export interface CollectorLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Supplies the time stamped on collected rows; tests may inject their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
