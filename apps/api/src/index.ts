export { createApp } from "./app.js";
export { type Config, ConfigError, loadConfig } from "./config.js";
export { ApiError } from "./http/errors.js";
export { createLogger, type Logger } from "./logger.js";
export { type RunningService, startService } from "./server.js";
export { type AppEnv, type Clock, type Services, systemClock } from "./services.js";
