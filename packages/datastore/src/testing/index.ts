export { createTestDatabase, type TestDatabase } from "./database.js";
export {
  findRunuser,
  MACHINE_POSTGRES_BIN,
  MACHINE_POSTGRES_URL,
  machinePostgresAvailable,
  machinePostgresBinariesAvailable,
  machinePostgresBinariesMissing,
} from "./machine-postgres.js";
export {
  postgresCommand,
  type ServerSettings,
  startLoopbackPrimary,
  startPrimary,
  startStandby,
  type TestServer,
} from "./private-postgres.js";
export { execStatements } from "./statements.js";
export { startTlsPrimary, type TlsTestServer } from "./tls-postgres.js";
export { databaseUrl } from "./urls.js";
export { waitFor } from "./wait.js";
