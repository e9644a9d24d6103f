export { createApp } from "./app.js";
export type { AccessRequirement, RequestAccess } from "./auth/access.js";
export type { ConnectionCatalog, ConnectionInfo } from "./auth/privileges.js";
export { AuthService } from "./auth/service.js";
export { type Config, ConfigError, loadConfig } from "./config.js";
export * from "./errors.js";
export { createLogger, type Logger } from "./logger.js";
export { type RunningService, startService } from "./server.js";
export { type AppEnv, type Clock, type Services, systemClock } from "./services.js";
