import { getProbeConfig } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { PROBE_CONFIG_COLUMNS, type ProbeConfigRow } from "../../probes/configs.js";

export function registerGetProbeConfig(app: App): void {
  app.openapi(guarded(getProbeConfig, {}), async (c) => {
    const { id } = c.req.valid("param");
    const [row] = await c
      .get("services")
      .datastore.sql.unsafe<ProbeConfigRow[]>(
        `select ${PROBE_CONFIG_COLUMNS} from probe_configs p where p.id = $1`,
        [id],
      );
    if (!row) {
      throw new ApiError(404, "Probe config not found");
    }
    return c.json(row, 200);
  });
}
