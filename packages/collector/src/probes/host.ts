import { cpu, fsSize, mem, osInfo, time } from "systeminformation";
import type { ProbeColumn, ProbeContext, ProbeDefinition, ProbeRow } from "./types.js";

/**
 * Host probes (D6): from the `system_stats` extension when its functions exist on the monitored
 * server; otherwise, for a server on the collector's own host, from that host through
 * `systeminformation`; otherwise nothing.
 */
function hostProbe(options: {
  name: string;
  snapshot: boolean;
  columns: readonly ProbeColumn[];
  /** Select list over the system_stats function of the probe's name, casting to storable types. */
  systemStatsSelect: string;
  order?: string;
  local(): Promise<ProbeRow[]>;
}): ProbeDefinition {
  return {
    name: options.name,
    scope: "host",
    intervalSeconds: 600,
    retentionDays: 7,
    snapshot: options.snapshot,
    columns: options.columns,
    async collect(context: ProbeContext) {
      if (context.systemStatsSchema !== null) {
        const schema = `"${context.systemStatsSchema.replaceAll('"', '""')}"`;
        const order = options.order ? ` order by ${options.order}` : "";
        return context.query(`select ${options.systemStatsSelect} from ${schema}.${options.name}()${order}`);
      }
      return context.isLocalHost ? options.local() : null;
    },
  };
}

/** Zero or unknown numbers from systeminformation become null rather than a false 0. */
function positiveOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

export const pgSysOsInfo = hostProbe({
  name: "pg_sys_os_info",
  // Process counts and uptime change on every run: a plain time series.
  snapshot: false,
  columns: [
    { name: "name", type: "text" },
    { name: "version", type: "text" },
    { name: "host_name", type: "text" },
    { name: "domain_name", type: "text" },
    { name: "handle_count", type: "bigint" },
    { name: "process_count", type: "bigint" },
    { name: "thread_count", type: "bigint" },
    { name: "architecture", type: "text" },
    { name: "last_bootup_time", type: "text" },
    { name: "os_up_since_seconds", type: "bigint" },
  ],
  systemStatsSelect: `name::text, version::text, host_name::text, domain_name::text,
  handle_count::float8, process_count::float8, thread_count::float8, architecture::text,
  last_bootup_time::text, os_up_since_seconds::float8`,
  async local() {
    const [os, clock] = await Promise.all([osInfo(), Promise.resolve(time())]);
    const dot = os.fqdn.indexOf(".");
    const uptime = Math.floor(clock.uptime);
    return [
      {
        name: os.distro || os.platform,
        version: [os.release, os.kernel && `(kernel ${os.kernel})`].filter(Boolean).join(" "),
        host_name: os.hostname,
        domain_name: dot > 0 ? os.fqdn.slice(dot + 1) : null,
        handle_count: null,
        process_count: null,
        thread_count: null,
        architecture: os.arch,
        last_bootup_time: new Date(clock.current - uptime * 1000).toISOString(),
        os_up_since_seconds: uptime,
      },
    ];
  },
});

export const pgSysCpuInfo = hostProbe({
  name: "pg_sys_cpu_info",
  snapshot: true,
  columns: [
    { name: "vendor", type: "text" },
    { name: "description", type: "text" },
    { name: "model_name", type: "text" },
    { name: "processor_type", type: "text" },
    { name: "logical_processor", type: "integer" },
    { name: "physical_processor", type: "integer" },
    { name: "no_of_cores", type: "integer" },
    { name: "architecture", type: "text" },
    { name: "clock_speed_hz", type: "bigint" },
    { name: "cpu_type", type: "text" },
    { name: "cpu_family", type: "text" },
    { name: "byte_order", type: "text" },
    { name: "l1dcache_size", type: "bigint" },
    { name: "l1icache_size", type: "bigint" },
    { name: "l2cache_size", type: "bigint" },
    { name: "l3cache_size", type: "bigint" },
  ],
  systemStatsSelect: `vendor::text, description::text, model_name::text, processor_type::text,
  logical_processor::int, physical_processor::int, no_of_cores::int, architecture::text,
  clock_speed_hz::float8, cpu_type::text, cpu_family::text, byte_order::text,
  l1dcache_size::float8, l1icache_size::float8, l2cache_size::float8, l3cache_size::float8`,
  async local() {
    const [info, os] = await Promise.all([cpu(), osInfo()]);
    const speedGhz = positiveOrNull(info.speedMax) ?? positiveOrNull(info.speed);
    return [
      {
        vendor: info.vendor || info.manufacturer || null,
        description: info.brand || null,
        model_name: [info.manufacturer, info.brand].filter(Boolean).join(" ") || null,
        processor_type: null,
        logical_processor: info.cores,
        physical_processor: info.processors,
        no_of_cores: info.physicalCores,
        architecture: os.arch,
        clock_speed_hz: speedGhz === null ? null : Math.round(speedGhz * 1e9),
        cpu_type: null,
        cpu_family: info.family || null,
        byte_order: process.arch === "s390x" ? "Big Endian" : "Little Endian",
        l1dcache_size: positiveOrNull(info.cache.l1d),
        l1icache_size: positiveOrNull(info.cache.l1i),
        l2cache_size: positiveOrNull(info.cache.l2),
        l3cache_size: positiveOrNull(info.cache.l3),
      },
    ];
  },
});

export const pgSysMemoryInfo = hostProbe({
  name: "pg_sys_memory_info",
  snapshot: false,
  columns: [
    { name: "total_memory", type: "bigint" },
    { name: "used_memory", type: "bigint" },
    { name: "free_memory", type: "bigint" },
    { name: "swap_total", type: "bigint" },
    { name: "swap_used", type: "bigint" },
    { name: "swap_free", type: "bigint" },
    { name: "cache_total", type: "bigint" },
    { name: "kernel_total", type: "bigint" },
    { name: "kernel_paged", type: "bigint" },
    { name: "kernel_non_paged", type: "bigint" },
    { name: "total_page_file", type: "bigint" },
    { name: "avail_page_file", type: "bigint" },
  ],
  systemStatsSelect: `total_memory::float8, used_memory::float8, free_memory::float8, swap_total::float8,
  swap_used::float8, swap_free::float8, cache_total::float8, kernel_total::float8, kernel_paged::float8,
  kernel_non_paged::float8, total_page_file::float8, avail_page_file::float8`,
  async local() {
    const info = await mem();
    return [
      {
        total_memory: info.total,
        used_memory: info.used,
        free_memory: info.free,
        swap_total: info.swaptotal,
        swap_used: info.swapused,
        swap_free: info.swapfree,
        cache_total: info.cached,
        kernel_total: info.slab,
        kernel_paged: null,
        kernel_non_paged: null,
        total_page_file: null,
        avail_page_file: null,
      },
    ];
  },
});

export const pgSysDiskInfo = hostProbe({
  name: "pg_sys_disk_info",
  snapshot: false,
  columns: [
    { name: "mount_point", type: "text" },
    { name: "file_system", type: "text" },
    { name: "drive_letter", type: "text" },
    { name: "drive_type", type: "text" },
    { name: "file_system_type", type: "text" },
    { name: "total_space", type: "bigint" },
    { name: "used_space", type: "bigint" },
    { name: "free_space", type: "bigint" },
    { name: "total_inodes", type: "bigint" },
    { name: "used_inodes", type: "bigint" },
    { name: "free_inodes", type: "bigint" },
  ],
  systemStatsSelect: `mount_point::text, file_system::text, drive_letter::text, drive_type::text,
  file_system_type::text, total_space::float8, used_space::float8, free_space::float8,
  total_inodes::float8, used_inodes::float8, free_inodes::float8`,
  order: "mount_point",
  async local() {
    const volumes = await fsSize();
    return volumes
      .map((volume) => ({
        mount_point: volume.mount,
        file_system: volume.fs,
        drive_letter: null,
        drive_type: null,
        file_system_type: volume.type,
        total_space: volume.size,
        used_space: volume.used,
        free_space: volume.available,
        total_inodes: null,
        used_inodes: null,
        free_inodes: null,
      }))
      .sort((a, b) => a.mount_point.localeCompare(b.mount_point));
  },
});
