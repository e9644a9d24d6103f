import { DATASTORE_READER_ROLE, DATASTORE_SECRET_COLUMNS, type Datastore } from "@dbmon/datastore";
import type postgres from "postgres";
import { Unavailable } from "../errors.js";
import { type RunStatementsOptions, runStatements, type StatementResult } from "./run.js";
import type { Statement } from "./statements.js";

interface RoleState {
  exists: boolean;
  privileged: boolean;
  settable: boolean;
  readable: string[] | null;
}

/**
 * Read-only SQL against dbmon's own datastore, for the query_datastore tool: the execution core's
 * READ ONLY transaction, deadline and caps, run as the reader role of migration 0020, which cannot
 * read password hashes, sessions, tokens, encrypted secrets or users' conversations. Before every run
 * the role is checked; when it is missing (a datastore user without CREATEROLE could not create it)
 * or can read any of those, the run is refused: it never falls back to the API's own privileges.
 */
export class DatastoreReader {
  constructor(
    private readonly datastore: Datastore,
    /** The role to run as: migration 0020's, or (in tests) another one to be checked the same way. */
    private readonly role: string = DATASTORE_READER_ROLE,
  ) {}

  async run(
    sql: string | Statement[],
    options: Pick<RunStatementsOptions, "maxRows" | "deadlineMs" | "signal"> = {},
  ): Promise<StatementResult[]> {
    await this.requireSafeRole();
    const run = await runStatements({
      connection: this.connectionOptions(),
      sql,
      mode: "read_only",
      role: this.role,
      ...options,
    });
    return run.results;
  }

  /** Throws Unavailable unless the reader role exists, can be taken, and reads no secret. */
  async requireSafeRole(): Promise<void> {
    const state = await this.roleState();
    const { role } = this;
    if (!state.exists) {
      throw new Unavailable(
        `query_datastore is not available: the datastore has no ${role} role (the datastore user needs CREATEROLE to create it when dbmon migrates; docs/mcp.md shows how an administrator creates it)`,
      );
    }
    if (!state.settable) {
      throw new Unavailable(
        `query_datastore is not available: the datastore user is not a member of the ${role} role (GRANT ${role} TO <datastore user>)`,
      );
    }
    if (state.privileged || (state.readable?.length ?? 0) > 0) {
      throw new Unavailable(
        `query_datastore is refused: the ${role} role can read secrets (${[
          ...(state.privileged ? ["superuser or BYPASSRLS"] : []),
          ...(state.readable ?? []),
        ].join(", ")}); revoke those privileges`,
      );
    }
  }

  private async roleState(): Promise<RoleState> {
    const tables = DATASTORE_SECRET_COLUMNS.map(([table]) => table);
    const columns = DATASTORE_SECRET_COLUMNS.map(([, column]) => column ?? "");
    const [row] = await this.datastore.sql<RoleState[]>`
      select true as exists,
             r.rolsuper or r.rolbypassrls as privileged,
             pg_has_role(current_user, r.oid, 'member') as settable,
             (select array_agg(case when s.col = '' then s.tab else s.tab || '.' || s.col end order by s.at)
                from unnest(${tables}::text[], ${columns}::text[]) with ordinality as s(tab, col, at)
               where to_regclass('public.' || s.tab) is not null
                 and case when s.col = ''
                          then has_any_column_privilege(r.oid, 'public.' || s.tab, 'select')
                          else has_column_privilege(r.oid, 'public.' || s.tab, s.col, 'select') end) as readable
        from pg_roles r
       where r.rolname = ${this.role}`;
    return row ?? { exists: false, privileged: false, settable: false, readable: null };
  }

  /** Where the datastore is, as the pool parsed it from the configured URL (its first host). */
  private connectionOptions(): postgres.Options<Record<string, never>> {
    const parsed = this.datastore.sql.options;
    const password = parsed.pass;
    return {
      ...(parsed.path ? { path: parsed.path } : { host: parsed.host[0], port: parsed.port[0] }),
      database: parsed.database,
      username: parsed.user,
      ...(typeof password === "string" ? { password } : {}),
      ssl: parsed.ssl,
    };
  }
}
