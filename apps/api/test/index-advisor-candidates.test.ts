import { loadModule, parseSync } from "libpg-query";
import { beforeAll, describe, expect, it } from "vitest";
import { coveringIndex, createIndexStatement, statementCandidates } from "../src/index-advisor/candidates.js";
import type { CatalogTable } from "../src/index-advisor/catalog.js";
import { bindParameters } from "../src/index-advisor/parameters.js";
import { statementColumns } from "../src/index-advisor/statement-columns.js";
import { classifySql } from "../src/sql/classify.js";
import { runStatements } from "../src/sql/run.js";
import { parseSql } from "./sql-support.js";

beforeAll(async () => {
  await loadModule();
});

const tree = (sql: string) =>
  (parseSync(sql) as { stmts: { stmt: Record<string, unknown> }[] }).stmts[0]?.stmt ?? {};

const column = (name: string, type = "integer", stats: Partial<CatalogTable["columns"][number]> = {}) => ({
  name,
  type,
  common: null,
  quantiles: [null, null, null],
  ...stats,
});

const orders: CatalogTable = {
  schema: "public",
  name: "orders",
  rows: 1000,
  columns: [
    column("id"),
    column("customer_id", "integer", { common: "7", quantiles: ["10", "500", "900"] }),
    column("status", "text", { common: "paid" }),
    column("created_at", "timestamp with time zone", {
      quantiles: ["2026-01-01", "2026-06-01", "2026-11-01"],
    }),
    column("amount", "numeric"),
  ],
  indexes: [
    { name: "orders_pkey", method: "btree", valid: true, partial: false, keys: ["id"], include: [] },
    {
      name: "orders_status_created",
      method: "btree",
      valid: true,
      partial: false,
      keys: ["status", "created_at"],
      include: [],
    },
  ],
};
const customers: CatalogTable = {
  schema: "public",
  name: "customers",
  rows: 100,
  columns: [column("id"), column("email", "text"), column("region", "text")],
  indexes: [],
};
const tables = new Map([
  ['"orders"', orders],
  ['"customers"', customers],
]);

describe("candidates from a statement's parse tree", () => {
  it("puts equality columns first, then a range or the sort, and adds INCLUDE columns", () => {
    const sql =
      "select o.id, o.amount from orders o where o.customer_id = $1 and o.status in ('a', 'b') and o.created_at > $2 order by o.created_at desc";
    const definitions = statementCandidates(0, statementColumns(tree(sql)), tables).map(createIndexStatement);
    expect(definitions).toEqual([
      'CREATE INDEX ON "public"."orders" ("customer_id")',
      'CREATE INDEX ON "public"."orders" ("status")',
      'CREATE INDEX ON "public"."orders" ("created_at")',
      'CREATE INDEX ON "public"."orders" ("customer_id", "status")',
      'CREATE INDEX ON "public"."orders" ("customer_id", "status", "created_at")',
      'CREATE INDEX ON "public"."orders" ("customer_id", "status", "created_at")',
      'CREATE INDEX ON "public"."orders" ("customer_id", "status", "created_at") INCLUDE ("id", "amount")',
    ]);
  });

  it("takes join columns of both tables, resolving unqualified columns through the catalog", () => {
    const sql = "select email from customers c join orders o on o.customer_id = c.id where region = 'north'";
    const definitions = statementCandidates(0, statementColumns(tree(sql)), tables).map(createIndexStatement);
    expect(definitions).toContain('CREATE INDEX ON "public"."orders" ("customer_id")');
    expect(definitions).toContain('CREATE INDEX ON "public"."customers" ("id", "region")');
    expect(definitions).toContain('CREATE INDEX ON "public"."customers" ("id", "region") INCLUDE ("email")');
  });

  it("leaves out what an existing index serves (same leading columns), not what it does not", () => {
    const served = statementCandidates(
      0,
      statementColumns(tree("select * from orders where status = 'x'")),
      tables,
    );
    expect(served.map((candidate) => coveringIndex(candidate)?.name)).toEqual(["orders_status_created"]);
    const notServed = statementCandidates(
      0,
      statementColumns(tree("select * from orders where created_at > now()")),
      tables,
    );
    expect(notServed.map((candidate) => coveringIndex(candidate))).toEqual([undefined]);
  });

  it("quotes every identifier", () => {
    const table = { ...customers, schema: 'we"ird', name: "Mixed Case" };
    expect(
      createIndexStatement({ table, keys: [{ column: 'a"b', descending: true }], include: ["c d"] }),
    ).toBe('CREATE INDEX ON "we""ird"."Mixed Case" ("a""b" DESC) INCLUDE ("c d")');
  });
});

describe("representative values for $n parameters (PostgreSQL 15)", () => {
  const bind = (sql: string) => bindParameters(sql, statementColumns(tree(sql)), tables);

  it("types values from pg_stats by comparison, LIMIT and OFFSET, and leaves literals and comments alone", () => {
    expect(
      bind("select '$1' /* $2 */ from orders where customer_id = $1 and created_at > $2 limit $3 offset $4"),
    ).toEqual({
      text: "select '$1' /* $2 */ from orders where customer_id = '7'::integer and created_at > '2026-11-01'::timestamp with time zone limit 100 offset 0",
    });
    expect(bind("select 1 from orders where customer_id between $1 and $2")).toEqual({
      text: "select 1 from orders where customer_id between '10'::integer and '500'::integer",
    });
  });

  it("names parameters it has no value for", () => {
    expect(bind("select $1 from orders where amount = $2")).toEqual({
      problem:
        "no representative value for $1, $2: a parameter needs a column it is compared with that has statistics (ANALYZE the table), or give the statement with values",
    });
  });

  it("counts byte offsets in UTF-8 text", () => {
    expect(bind("select 'é€' from orders where customer_id = $1")).toEqual({
      text: "select 'é€' from orders where customer_id = '7'::integer",
    });
  });
});

describe("HypoPG's functions in the SQL core", () => {
  it("marks a statement whose only non-read is HypoPG's, and nothing else", async () => {
    const [create, mixed, plain] = await parseSql(
      "select * from public.hypopg_create_index('create index on t (a)'); select hypopg_reset(), pg_terminate_backend(1); select 1",
    );
    expect(create).toMatchObject({
      notRead: "the function public.hypopg_create_index",
      hypotheticalIndexes: true,
    });
    expect(mixed?.notRead).toBeDefined();
    expect(mixed?.hypotheticalIndexes).toBeUndefined();
    expect(plain?.hypotheticalIndexes).toBeUndefined();
  });

  it("refuses HypoPG's functions in a read-only run that does not allow them, before connecting", async () => {
    const statements = await parseSql("select hypopg_reset()");
    await expect(
      runStatements({ connection: { host: "127.0.0.1", port: 1 }, statements, mode: "read_only" }),
    ).rejects.toThrow(/^Refused: a read-only query may not use the function hypopg_reset/);
  });

  it("hands out parse trees with the statements when asked", () => {
    const classification = classifySql("select 1; select a from t", { trees: true });
    expect(classification).toMatchObject({
      ok: true,
      trees: [
        { node: { SelectStmt: expect.any(Object) } },
        { node: { SelectStmt: expect.any(Object) }, offset: 10 },
      ],
    });
    expect(classifySql("select 1")).not.toHaveProperty("trees");
  });
});
