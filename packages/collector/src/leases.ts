import type { Sql } from "@dbmon/datastore";

export interface LeaseState {
  /** Connections this collector holds a valid lease on. */
  owned: number[];
  /** When the earliest valid lease held by another collector expires (a takeover chance), if any. */
  nextForeignExpiry: Date | null;
}

/**
 * One lease cycle (D11), in one transaction on the datastore's clock:
 * - renew this collector's heartbeat and leases, dropping leases of connections no longer monitored;
 * - give back leases beyond a fair share (monitored connections / living collectors), so that a
 *   collector that starts later gets its part;
 * - take monitored connections whose lease is missing or expired, up to the fair share (rows that
 *   another collector's cycle has locked are skipped).
 * Returns what this collector holds. Given-back connections are announced on `channel`.
 */
export async function cycleLeases(
  sql: Sql,
  holder: string,
  leaseSeconds: number,
  channel: string,
): Promise<LeaseState> {
  return sql.begin(async (tx) => {
    const period = `${leaseSeconds} seconds`;
    await tx`delete from collector_instances where expires_at < now() - interval '1 hour'`;
    await tx`
      insert into collector_instances (instance_id, expires_at)
      values (${holder}, now() + ${period}::interval)
      on conflict (instance_id) do update set expires_at = excluded.expires_at`;
    await tx`
      delete from collector_leases l using connections c
      where c.id = l.connection_id and not c.is_monitored
        and (l.holder = ${holder} or l.expires_at <= now())`;
    await tx`update collector_leases set expires_at = now() + ${period}::interval where holder = ${holder}`;
    const [share] = await tx<{ connections: number }[]>`
      select ceil(
        (select count(*) from connections where is_monitored)::numeric
        / greatest(1, (select count(*) from collector_instances where expires_at > now()))
      )::int as connections`;
    const fairShare = share?.connections ?? 0;
    const givenBack = await tx`
      delete from collector_leases where holder = ${holder} and connection_id in (
        select connection_id from collector_leases where holder = ${holder}
        order by connection_id offset ${fairShare})
      returning connection_id`;
    if (givenBack.length > 0) {
      await tx`select pg_notify(${channel}, ${JSON.stringify({ op: "rebalance" })})`;
    }
    const [held] = await tx<{ n: number }[]>`
      select count(*)::int as n from collector_leases where holder = ${holder}`;
    const wanted = Math.max(0, fairShare - (held?.n ?? 0));
    if (wanted > 0) {
      await tx`
        with free as (
          select c.id from connections c
          where c.is_monitored
            and not exists (
              select 1 from collector_leases l where l.connection_id = c.id and l.expires_at > now()
            )
          order by c.id
          limit ${wanted}
          for update of c skip locked
        )
        insert into collector_leases (connection_id, holder, acquired_at, expires_at)
        select id, ${holder}, now(), now() + ${period}::interval from free
        on conflict (connection_id) do update
          set holder = excluded.holder, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
          where collector_leases.expires_at <= now()`;
    }
    const owned = await tx<{ connection_id: number }[]>`
      select connection_id from collector_leases where holder = ${holder} order by connection_id`;
    const [foreign] = await tx<{ next_ms: number | null }[]>`
      select (extract(epoch from min(expires_at)) * 1000)::float8 as next_ms
      from collector_leases where holder <> ${holder} and expires_at > now()`;
    const next = foreign?.next_ms ?? null;
    return {
      owned: owned.map((row) => row.connection_id),
      nextForeignExpiry: next === null ? null : new Date(next),
    };
  });
}

/**
 * Gives up this collector's leases and heartbeat (a clean stop) and tells the other collectors, so
 * that they take the connections over at once instead of at their next poll.
 */
export async function releaseLeases(sql: Sql, holder: string, channel: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`delete from collector_instances where instance_id = ${holder}`;
    const released = await tx`delete from collector_leases where holder = ${holder} returning connection_id`;
    if (released.length > 0) {
      await tx`select pg_notify(${channel}, ${JSON.stringify({ op: "release" })})`;
    }
  });
}
