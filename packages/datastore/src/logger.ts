/** The slice of a pino logger the datastore uses, so it does not depend on the API's logger. */
export interface DatastoreLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const silentLogger: DatastoreLogger = {
  debug() {},
  info() {},
  warn() {},
};
