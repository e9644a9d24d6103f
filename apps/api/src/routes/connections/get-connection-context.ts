import { getConnectionContext } from "@dbmon/contract";
import { NotFound } from "../../errors.js";
import { implement } from "../../http/operations.js";

/** "15.20 (Debian …)" → 150020; "9.6.24" → 90624. */
function versionNumber(version: string | null): number | null {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version ?? "");
  if (!match) {
    return null;
  }
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  return major >= 10 ? major * 10_000 + minor : major * 10_000 + minor * 100 + patch;
}

export const getConnectionContextHandler = implement(getConnectionContext, async (c) => {
  const { id } = c.req.valid("param");
  const { connections, serverInfo } = c.get("services");
  const [row, info] = await Promise.all([connections.get(id), serverInfo.read(id)]);
  if (!row || !info) {
    throw new NotFound("Connection not found");
  }
  const { system, dbserver } = info;
  return c.json(
    {
      connection_id: id,
      server_name: row.name,
      postgresql: {
        version: dbserver.version,
        version_num: versionNumber(dbserver.version),
        max_connections: dbserver.max_connections,
        data_directory: dbserver.data_directory,
        installed_extensions: [...new Set(info.extensions.map((extension) => extension.name))].sort(),
        settings: Object.fromEntries(
          info.key_settings.map((setting) => [setting.name, `${setting.setting}${setting.unit ?? ""}`]),
        ),
      },
      system: {
        os_name: system.os_name,
        os_version: system.os_version,
        architecture: system.architecture,
        hostname: system.hostname,
        cpu: {
          model: system.cpu_model,
          cores: system.cpu_cores,
          logical_processors: system.cpu_logical,
          clock_speed_hz: system.cpu_clock_speed,
        },
        memory: { total_bytes: system.memory_total_bytes, free_bytes: system.memory_free_bytes },
        disks: system.disks,
      },
    },
    200,
  );
});
