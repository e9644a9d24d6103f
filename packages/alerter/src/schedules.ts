import { enabledBlackoutSchedules, type Sql } from "@dbmon/datastore";
import { Cron } from "croner";
import type { AlerterLogger } from "./logger.js";

/** How far back a missed instant still opens its window (an alerter that was briefly down). */
const CATCH_UP_MS = 5 * 60_000;

/**
 * Opens the blackout window of every enabled schedule whose cron instant (in its time zone) has come
 * since the last one it opened. Each instant is claimed with a conditional update, so several
 * alerters open it once. The window starts at the scheduled instant and lasts duration_minutes.
 */
export async function runSchedules(sql: Sql, now: Date, logger: AlerterLogger): Promise<number> {
  const schedules = await enabledBlackoutSchedules(sql);
  let opened = 0;
  for (const schedule of schedules) {
    let cron: Cron;
    try {
      cron = new Cron(schedule.cronExpression, { timezone: schedule.timezone || "UTC", paused: true });
    } catch (error) {
      logger.warn(
        { scheduleId: schedule.id, err: error },
        "blackout schedule has an invalid cron expression",
      );
      continue;
    }
    const floor = Math.max(
      schedule.lastFiredFor ? schedule.lastFiredFor.getTime() : 0,
      now.getTime() - CATCH_UP_MS,
    );
    const instant = cron.nextRun(new Date(floor));
    cron.stop();
    if (!instant || instant.getTime() > now.getTime()) {
      continue;
    }
    const end = new Date(instant.getTime() + schedule.durationMinutes * 60_000);
    if (end.getTime() <= now.getTime()) {
      continue;
    }
    const claimed = await sql.begin(async (tx) => {
      const [row] = await tx`
        update blackout_schedules set last_fired_for = ${instant.toISOString()}::timestamptz
        where id = ${schedule.id} and (last_fired_for is null or last_fired_for < ${instant.toISOString()}::timestamptz)
        returning id`;
      if (!row) {
        return false;
      }
      await tx`
        insert into blackouts (scope, group_id, cluster_id, connection_id, database_name, reason, start_time, end_time,
          created_by, schedule_id, created_at)
        values (${schedule.scope}, ${schedule.groupId}, ${schedule.clusterId}, ${schedule.connectionId},
          ${schedule.databaseName}, ${`Scheduled: ${schedule.name}${schedule.reason ? ` (${schedule.reason})` : ""}`},
          ${instant.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, 'scheduler', ${schedule.id},
          ${now.toISOString()}::timestamptz)`;
      return true;
    });
    if (claimed) {
      opened += 1;
      logger.info(
        { scheduleId: schedule.id, start: instant.toISOString(), end: end.toISOString() },
        "scheduled blackout opened",
      );
    }
  }
  return opened;
}
