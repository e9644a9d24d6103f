import { createHmac } from "node:crypto";
import {
  DATASTORE_READER_ROLE,
  DATASTORE_SECRET_COLUMNS,
  type Datastore,
  type SecretKey,
  scramVerifier,
} from "@dbmon/datastore";
import type postgres from "postgres";
import { Unavailable } from "../errors.js";
import type { Statement } from "./classify.js";
import type { RunStatementsOptions, StatementResult } from "./run.js";
import type { SqlService } from "./service.js";

interface RoleState {
  exists: boolean;
  canLogin: boolean;
  privileged: boolean;
  memberOf: string[] | null;
  readable: string[] | null;
}

export interface DatastoreReaderOptions {
  datastore: Datastore;
  sql: SqlService;
  /** The key its password is derived from (when `password` is not given). */
  secretKey: SecretKey;
  /** The role's password as an operator set it; dbmon then never changes it. */
  password?: string | undefined;
  /** The role to log in as: migration 0020's, or (in tests) another one checked the same way. */
  role?: string;
}

/**
 * Read-only SQL against dbmon's own datastore, for the query_datastore tool. It logs in as a role of
 * its own (migration 0020's), never as the API's user with SET ROLE: no statement can then return to
 * the owner's rights, because the session never had them. That role cannot read password hashes,
 * sessions, tokens, encrypted secrets or users' conversations; before every run it is checked, and
 * when it is missing, cannot log in, belongs to any other role, or can read any of those, the run is
 * refused: it never falls back to the API's own privileges. Its statements run as every read-only
 * run does (the parser's allow-list, a READ ONLY transaction, the deadline and caps).
 */
export class DatastoreReader {
  private readonly role: string;
  private provisioning: Promise<void> | undefined;

  constructor(private readonly options: DatastoreReaderOptions) {
    this.role = options.role ?? DATASTORE_READER_ROLE;
  }

  async run(
    userId: number,
    statements: Statement[],
    options: Pick<RunStatementsOptions, "maxRows" | "deadlineMs" | "signal"> = {},
  ): Promise<StatementResult[]> {
    await this.requireSafeRole();
    const run = await this.options.sql.run(
      { userId, server: "datastore" },
      { connection: this.connectionOptions(), statements, mode: "read_only", ...options },
    );
    return run.results;
  }

  /**
   * Throws Unavailable unless the reader role exists, may log in with its password, belongs to no
   * other role and reads no secret. The first check of a process sets the role's login and password
   * when dbmon's datastore user may (it created the role), unless an operator gave the password.
   */
  async requireSafeRole(): Promise<void> {
    const { role } = this;
    let state = await this.roleState();
    if (!state.exists) {
      throw new Unavailable(
        `query_datastore is not available: the datastore has no ${role} role (the datastore user needs CREATEROLE to create it when dbmon migrates; docs/mcp.md shows how an administrator creates it)`,
      );
    }
    if (this.options.password === undefined) {
      this.provisioning ??= this.provision().catch((error: unknown) => {
        this.provisioning = undefined;
        throw error;
      });
      await this.provisioning;
      state = await this.roleState();
    }
    if (!state.canLogin) {
      throw new Unavailable(
        `query_datastore is not available: the ${role} role cannot log in (an administrator can run ALTER ROLE ${role} LOGIN PASSWORD '…' and give dbmon the password in DBMON_DATASTORE_READER_PASSWORD)`,
      );
    }
    const widened = [
      ...(state.privileged ? ["superuser or BYPASSRLS"] : []),
      ...(state.memberOf ?? []).map((name) => `membership of ${name}`),
      ...(state.readable ?? []),
    ];
    if (widened.length > 0) {
      throw new Unavailable(
        `query_datastore is refused: the ${role} role can read secrets (${widened.join(", ")}); revoke those privileges`,
      );
    }
  }

  /** The role's login and password, set by dbmon's datastore user when it may; skipped otherwise. */
  private async provision(): Promise<void> {
    const name = `"${this.role.replaceAll('"', '""')}"`;
    try {
      await this.options.datastore.sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtext('dbmon datastore reader role'))`;
        await tx.unsafe(
          `alter role ${name} with login nosuperuser nocreatedb nocreaterole noreplication nobypassrls noinherit password '${scramVerifier(this.password())}'`,
        );
        // Nothing it belongs to may lead anywhere: not to the owner's role, not to pg_read_all_data.
        const memberships = await tx<{ rolname: string }[]>`
          select g.rolname from pg_auth_members m join pg_roles g on g.oid = m.roleid
           where m.member = (select oid from pg_roles where rolname = ${this.role})`;
        for (const { rolname } of memberships) {
          await tx`revoke ${tx(rolname)} from ${tx(this.role)}`;
        }
      });
    } catch (error) {
      // 42501: the datastore user may not alter the role (no CREATEROLE, or no ADMIN on it); an
      // administrator then sets it up (the checks that follow say what is missing).
      if ((error as { code?: string }).code !== "42501") {
        throw error;
      }
    }
  }

  /** The operator's password, or one derived from the secret key (the same in every process). */
  private password(): string {
    return (
      this.options.password ??
      createHmac("sha256", this.options.secretKey)
        .update(`dbmon datastore reader password: ${this.role}`)
        .digest("base64url")
    );
  }

  private async roleState(): Promise<RoleState> {
    const tables = DATASTORE_SECRET_COLUMNS.map(([table]) => table);
    const columns = DATASTORE_SECRET_COLUMNS.map(([, column]) => column ?? "");
    const [row] = await this.options.datastore.sql<RoleState[]>`
      select true as exists,
             r.rolcanlogin as "canLogin",
             r.rolsuper or r.rolbypassrls as privileged,
             (select array_agg(g.rolname::text order by g.rolname)
                from pg_auth_members m join pg_roles g on g.oid = m.roleid
               where m.member = r.oid) as "memberOf",
             (select array_agg(case when s.col = '' then s.tab else s.tab || '.' || s.col end order by s.at)
                from unnest(${tables}::text[], ${columns}::text[]) with ordinality as s(tab, col, at)
               where to_regclass('public.' || s.tab) is not null
                 and case when s.col = ''
                          then has_any_column_privilege(r.oid, 'public.' || s.tab, 'select')
                          else has_column_privilege(r.oid, 'public.' || s.tab, s.col, 'select') end) as readable
        from pg_roles r
       where r.rolname = ${this.role}`;
    return row ?? { exists: false, canLogin: false, privileged: false, memberOf: null, readable: null };
  }

  /** Where the datastore is, as the pool parsed it from the configured URL, as the reader role. */
  private connectionOptions(): postgres.Options<Record<string, never>> {
    const parsed = this.options.datastore.sql.options;
    return {
      ...(parsed.path ? { path: parsed.path } : { host: parsed.host[0], port: parsed.port[0] }),
      database: parsed.database,
      username: this.role,
      password: this.password(),
      ssl: parsed.ssl,
    };
  }
}
