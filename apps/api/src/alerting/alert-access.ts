import type { Sql } from "@dbmon/datastore";
import type { RequestAccess } from "../auth/access.js";
import { ApiError } from "../http/errors.js";
import { alertConnection } from "./alerts.js";

/** The alert, when it exists (404 otherwise) and the caller may see its connection (403 otherwise). */
export async function requireAlert(
  access: RequestAccess,
  sql: Sql,
  alertId: number,
): Promise<{ connectionId: number; status: string }> {
  const alert = await alertConnection(sql, alertId);
  if (!alert) {
    throw new ApiError(404, "Alert not found");
  }
  if (!(await access.isSuperuser()) && (await access.connectionLevel(alert.connectionId)) === undefined) {
    throw new ApiError(403, "Access denied");
  }
  return alert;
}
