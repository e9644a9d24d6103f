export { advisoryLocks } from "./advisory-locks.js";
export { type Datastore, type DatastoreConfig, type Db, openDatastore, type Sql } from "./datastore.js";
export { DATASTORE_READER_ROLE, DATASTORE_SECRET_COLUMNS } from "./datastore-reader.js";
export { DRIVER_TYPE_OPTIONS, TEXT_ARRAY_OID } from "./driver-types.js";
export type { DurableListener } from "./durable-listen.js";
export { type EmbeddedServer, startEmbeddedServer } from "./embedded.js";
export { type DatastoreLogger, silentLogger } from "./logger.js";
export { migrateDatastore, migrationsFolder } from "./migrate.js";
// Active session history's reads: everything the module exports is for readers of the datastore.
export * from "./queries/activity.js";
export { ACTIVITY_MINUTE_KEY, type ActivitySampleOf } from "./queries/activity-sample.js";
export { type BlackoutScheduleRow, enabledBlackoutSchedules } from "./queries/blackout-schedules.js";
export {
  type ChangedRowsTable,
  changedRowsTables,
  ensureChangedRowsTables,
} from "./queries/changed-rows.js";
export {
  collectedDatabaseJoin,
  collectsDatabase,
  type DirectoryConnection,
  databaseSources,
  readServerDirectory,
  readsDatabaseRow,
  type ServerDirectoryEntry,
  sameReadingConnections,
  sameServer,
  serverAddress,
  serverDirectory,
  serverRowsConnection,
  serverSources,
} from "./queries/database-ownership.js";
export { drizzleOf } from "./queries/drizzle.js";
export {
  type EmailRecipientRow,
  type NotificationChannelRow,
  readNotificationChannels,
  type StoredNotificationChannel,
} from "./queries/notification-channels.js";
export {
  type ConnectionPlacement,
  connectionPlacements,
  type EffectiveProbeConfig,
  effectiveProbeConfigs,
  longestRetentionDays,
  type ProbeConfigScope,
  type ProbeDefaults,
  resolveProbeConfig,
  seedProbeConfigs,
} from "./queries/probe-configs.js";
export { readableNumberSql } from "./queries/readable-number.js";
export {
  type CollectedDatabase,
  type CollectedDisk,
  type CollectedExtension,
  type CollectedHost,
  type CollectedServer,
  type CollectedServerInfo,
  type CollectedSetting,
  KEY_SETTING_NAMES,
  readServerInfo,
} from "./queries/server-info.js";
export * as schema from "./schema/index.js";
export { scramVerifier } from "./scram-verifier.js";
export {
  decryptSecret,
  encryptSecret,
  loadSecretKey,
  SECRET_FILE_NAME,
  SecretError,
  type SecretKey,
  type SecretKeySource,
} from "./secrets.js";
export { type BuiltInRule, builtInRules } from "./seed/alert-rules.js";
export { isDatastoreUnavailable, POOL_ENDED_CODES, unavailableCode } from "./unavailable.js";
