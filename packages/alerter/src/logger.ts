/** The logging the alerter needs (pino's shape). */
export interface AlerterLogger {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentAlerterLogger: AlerterLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
