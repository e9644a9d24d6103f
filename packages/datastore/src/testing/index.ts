export { createTestDatabase, type TestDatabase } from "./database.js";
export {
  MACHINE_POSTGRES_BIN,
  MACHINE_POSTGRES_URL,
  machinePostgresAvailable,
  machinePostgresBinariesAvailable,
} from "./machine-postgres.js";
export {
  type ServerSettings,
  startPrimary,
  startStandby,
  type TestServer,
} from "./private-postgres.js";
export { execStatements } from "./statements.js";
export { databaseUrl } from "./urls.js";
