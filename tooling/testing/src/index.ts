export { createTestDatabase, type TestDatabase } from "./database.js";
export { databaseUrl } from "./urls.js";
