import type { CollectorLogger } from "./logger.js";
import { type ProbeContext, type ProbeDefinition, type ProbeRow, queryForVersion } from "./probes/types.js";
import { describeError, type QueryFn, RunTimeoutError } from "./sessions.js";

const SYSTEM_STATS_PROBE_FUNCTION = "pg_sys_os_info";

/** Marks collector queries so that they can be told apart in pg_stat_activity. */
export function tagged(probe: ProbeDefinition, text: string): string {
  return `/* dbmon collector: ${probe.name} */ ${text}`;
}

/** What the server is, as a probe run needs it. */
export interface RunServer {
  serverVersionNum: number;
  isLocalHost: boolean;
}

/** How a connection's settings shape one run (see `ProbeContext`). */
export interface RunOptions {
  /** Hears when the probe found nothing to read in the session's database (`ProbeContext.absent`). */
  absent?: () => void;
  /** `ProbeContext.includeSystemCatalogs`; true unless the probe configuration says otherwise. */
  includeSystemCatalogs?: boolean;
}

/** Runs a probe on one session; null when the probe cannot run on this server. */
export async function runProbeOn(
  probe: ProbeDefinition,
  query: QueryFn,
  server: RunServer,
  { absent = () => {}, includeSystemCatalogs = true }: RunOptions = {},
): Promise<ProbeRow[] | null> {
  const taggedQuery: QueryFn = (text) => query(tagged(probe, text));
  let systemStatsSchema: string | null = null;
  if (probe.scope === "host") {
    const [found] = await taggedQuery(
      `select n.nspname::text as schema from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where p.proname = '${SYSTEM_STATS_PROBE_FUNCTION}' and p.pronargs = 0 order by n.nspname limit 1`,
    );
    systemStatsSchema = found ? String(found.schema) : null;
  }
  const context: ProbeContext = {
    query: taggedQuery,
    serverVersionNum: server.serverVersionNum,
    systemStatsSchema,
    isLocalHost: server.isLocalHost,
    includeSystemCatalogs,
    absent,
  };
  if (probe.collect) {
    return probe.collect(context);
  }
  const text = queryForVersion(probe.queries ?? [], context.serverVersionNum);
  return text === undefined ? null : context.query(text);
}

/** SQLSTATE of a statement the role may not run (pg_hba_file_rules without the privilege, say). */
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Logs failed probe runs (other than connection failures). A run refused for want of a privilege
 * fails the same way every time until someone grants it: it is a warning once, then debug until the
 * probe succeeds again, not a warning per server at every run.
 */
export class ProbeFailureLog {
  private readonly refused = new Set<string>();

  constructor(private readonly logger: CollectorLogger) {}

  failed(probe: ProbeDefinition, context: Record<string, unknown>, error: unknown): void {
    const entry = { ...context, probe: probe.name, err: describeError(error) };
    if ((error as { code?: unknown } | null)?.code !== INSUFFICIENT_PRIVILEGE) {
      this.logger.warn(entry, error instanceof RunTimeoutError ? "probe run timed out" : "probe run failed");
      return;
    }
    if (this.refused.has(probe.name)) {
      this.logger.debug(entry, "probe run refused: insufficient privilege");
      return;
    }
    this.refused.add(probe.name);
    this.logger.warn(entry, "probe run refused: insufficient privilege (not logged again until it succeeds)");
  }

  succeeded(probe: ProbeDefinition): void {
    this.refused.delete(probe.name);
  }
}
