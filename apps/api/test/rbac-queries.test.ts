import { type Datastore, schema } from "@dbmon/datastore";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AccessCache } from "../src/auth/access-cache.js";
import { RbacAdministration } from "../src/auth/rbac.js";
import { AuthService } from "../src/auth/service.js";
import { loadConfig } from "../src/config.js";

const ROWS = 2000;

/** The RBAC lists cost a fixed number of queries, however many rows they show. */
describe("RBAC lists", () => {
  let database: TestDatabase;
  let sql: postgres.Sql;
  let queries = 0;
  let rbac: RbacAdministration;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {}, debug: () => void queries++ });
    const datastore: Datastore = {
      db: drizzle({ client: sql, schema, casing: "snake_case" }),
      sql,
      url: database.url,
      embedded: undefined,
      ping: async () => {},
      listen: async () => ({ unlisten: async () => {} }),
      close: async () => {},
    };
    const clock = { now: () => new Date() };
    const auth = new AuthService({ datastore, clock, config: loadConfig({}), cache: new AccessCache() });
    await auth.registerMcpItems();
    rbac = new RbacAdministration(auth, clock);
    await sql`insert into users (username) select 'user' || n from generate_series(1, ${ROWS}) n`;
    await sql`
      insert into service_tokens (token_hash, user_id, annotation)
      select md5(id::text), id, 'token of ' || username from users`;
    await sql`
      insert into token_mcp_scopes (token_id, identifier)
      select t.id, i.identifier from service_tokens t
        cross join (select identifier from mcp_privilege_identifiers order by id limit 2) i`;
    await sql`
      insert into token_connection_scopes (token_id, connection_id, access_level)
      select id, id, 'read' from service_tokens`;
    await sql`insert into rbac_groups (name) select 'group' || n from generate_series(1, ${ROWS}) n`;
    await sql`
      insert into group_memberships (parent_group_id, member_user_id)
      select g.id, u.id from rbac_groups g join users u on u.username = 'user' || substr(g.name, 6)`;
    // Opens the pool's connections, whose first queries fetch type information.
    await Promise.all([sql`select 1`, sql`select 1`]);
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
  });
  beforeEach(() => {
    queries = 0;
  });

  it("lists 2,000 service tokens with owners and scopes", async () => {
    const tokens = await rbac.tokens.list();
    expect(tokens).toHaveLength(ROWS);
    expect(tokens.every((token) => token.scope?.mcpIds.length === 2)).toBe(true);
    // The tokens with their owners, the three dimensions of their scopes, the MCP registry.
    expect(queries).toBeLessThanOrEqual(5);
  });

  it("lists 2,000 users", async () => {
    expect(await rbac.users.list()).toHaveLength(ROWS);
    expect(queries).toBe(1);
  });

  it("lists 2,000 groups with their member counts", async () => {
    const groups = await rbac.groups.list();
    expect(groups).toHaveLength(ROWS);
    expect(groups.every((group) => group.memberCount === 1)).toBe(true);
    expect(queries).toBe(1);
  });
});
