/**
 * The PostgreSQL role the `query_datastore` MCP tool runs as, created and granted by migration 0020
 * (NOLOGIN: the API's own session switches to it with SET LOCAL ROLE inside a READ ONLY transaction).
 */
export const DATASTORE_READER_ROLE = "dbmon_datastore_reader";

/**
 * What the reader role must never be able to read: checked before every query_datastore run, so a
 * role that someone widened (a grant, membership of pg_read_all_data) makes the tool refuse instead
 * of answering. `null` as the column means the whole table.
 */
export const DATASTORE_SECRET_COLUMNS: readonly (readonly [table: string, column: string | null])[] = [
  ["users", "password_hash"],
  ["users", "email"],
  ["sessions", null],
  ["service_tokens", null],
  ["token_connection_scopes", null],
  ["token_mcp_scopes", null],
  ["token_admin_scopes", null],
  ["connection_selections", null],
  ["login_throttle", null],
  ["connections", "password_encrypted"],
  ["connections", "owner_token"],
  ["connections", "sslkey"],
  ["notification_channels", "webhook_url_encrypted"],
  ["notification_channels", "headers_encrypted"],
  ["notification_channels", "auth_credentials_encrypted"],
  ["notification_channels", "smtp_password_encrypted"],
  ["notification_channels", "endpoint_url"],
  ["notification_channels", "owner_token"],
  ["email_recipients", "email_address"],
  ["conversations", null],
  ["chat_memories", null],
  ["system_settings", null],
];
