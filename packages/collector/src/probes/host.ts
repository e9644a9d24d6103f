import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import {
  cpu,
  currentLoad,
  disksIO,
  fsSize,
  mem,
  networkInterfaces,
  networkStats,
  osInfo,
  processes,
  time,
} from "systeminformation";
import type { ProbeCollection, ProbeContext, ProbeRow } from "./types.js";

/**
 * How long one reading of the collector's own host serves every connection on that host. Without
 * it, many servers on one host would each read it (process tables, file systems) at the same time:
 * the same figures, at a cost in memory and CPU that grows with the number of connections.
 */
const LOCAL_READING_REUSE_MS = 5_000;

/** `read`, called at most once per reuse period; callers in between share its result. */
export function sharedReading(read: () => Promise<ProbeRow[]>): () => Promise<ProbeRow[]> {
  let latest: { rows: Promise<ProbeRow[]>; at: number } | undefined;
  return () => {
    const now = performance.now();
    if (!latest || now - latest.at >= LOCAL_READING_REUSE_MS) {
      const reading = { rows: read(), at: now };
      reading.rows.catch(() => {
        if (latest === reading) {
          latest = undefined;
        }
      });
      latest = reading;
    }
    return latest.rows;
  };
}

/**
 * Host probes (D6): from the `system_stats` extension when its functions exist on the monitored
 * server; otherwise, for a server on the collector's own host, from that host through
 * `systeminformation` (one reading shared by every connection on it); otherwise nothing.
 */
function hostProbe(options: {
  name: string;
  /** Select list over the system_stats function of the probe's name, casting to storable types. */
  systemStatsSelect: string;
  order?: string;
  local(): Promise<ProbeRow[]>;
}): ProbeCollection {
  const local = sharedReading(options.local);
  return {
    name: options.name,
    async collect(context: ProbeContext) {
      if (context.systemStatsSchema !== null) {
        const schema = `"${context.systemStatsSchema.replaceAll('"', '""')}"`;
        const order = options.order ? ` order by ${options.order}` : "";
        return context.query(`select ${options.systemStatsSelect} from ${schema}.${options.name}()${order}`);
      }
      return context.isLocalHost ? local() : null;
    },
  };
}

/** Zero or unknown numbers from systeminformation become null rather than a false 0. */
function positiveOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

/** The highest `<label>: <MHz>` figure of a text such as /proc/cpuinfo or lscpu's output, in MHz. */
export function megahertzIn(text: string, label: RegExp): number | null {
  let highest: number | null = null;
  for (const line of text.split("\n")) {
    const separator = line.indexOf(":");
    if (separator > 0 && label.test(line.slice(0, separator).trim())) {
      const value = positiveOrNull(Number.parseFloat(line.slice(separator + 1)));
      if (value !== null && (highest === null || value > highest)) {
        highest = value;
      }
    }
  }
  return highest;
}

/**
 * The clock speed in hertz where systeminformation reports none (virtual machines give 0): the
 * kernel's `cpu MHz` of /proc/cpuinfo, else lscpu's `CPU max MHz` / `CPU MHz`.
 */
async function fallbackClockSpeedHz(): Promise<number | null> {
  const fromProc = await readFile("/proc/cpuinfo", "utf8").then(
    (text) => megahertzIn(text, /^cpu MHz$/i),
    () => null,
  );
  const megahertz =
    fromProc ??
    (await promisify(execFile)("lscpu", { timeout: 5_000, env: { ...process.env, LC_ALL: "C" } }).then(
      ({ stdout }) => megahertzIn(stdout, /^CPU max MHz$/i) ?? megahertzIn(stdout, /^CPU MHz$/i),
      () => null,
    ));
  return megahertz === null ? null : Math.round(megahertz * 1e6);
}

export const pgSysOsInfo = hostProbe({
  name: "pg_sys_os_info",
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
  systemStatsSelect: `vendor::text, description::text, model_name::text, processor_type::text,
  logical_processor::int, physical_processor::int, no_of_cores::int, architecture::text,
  clock_speed_hz::float8, cpu_type::text, cpu_family::text, byte_order::text,
  l1dcache_size::float8, l1icache_size::float8, l2cache_size::float8, l3cache_size::float8`,
  async local() {
    const [info, os] = await Promise.all([cpu(), osInfo()]);
    const speedGhz = positiveOrNull(info.speedMax) ?? positiveOrNull(info.speed);
    const clockSpeedHz = speedGhz === null ? await fallbackClockSpeedHz() : Math.round(speedGhz * 1e9);
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
        clock_speed_hz: clockSpeedHz,
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

/**
 * Reads of this host shared by every local connection's runs for a few seconds, so that a collector
 * monitoring many servers on its own host reads the host once, not once per server.
 */
function sharedRead<T>(read: () => Promise<T>, ttlMs = 5000): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at > ttlMs) {
      const value = read();
      cached = { at: now, value };
      value.catch(() => {
        cached = undefined;
      });
    }
    return cached.value;
  };
}

const readProcesses = sharedRead(() => processes());
const readLoad = sharedRead(() => currentLoad());

export const pgSysCpuUsageInfo = hostProbe({
  name: "pg_sys_cpu_usage_info",
  systemStatsSelect: `usermode_normal_process_percent::float8, usermode_niced_process_percent::float8,
  kernelmode_process_percent::float8, idle_mode_percent::float8, io_completion_percent::float8,
  servicing_irq_percent::float8, servicing_softirq_percent::float8, user_time_percent::float8,
  processor_time_percent::float8, privileged_time_percent::float8, interrupt_time_percent::float8`,
  async local() {
    const load = await readLoad();
    return [
      {
        usermode_normal_process_percent: load.currentLoadUser,
        usermode_niced_process_percent: load.currentLoadNice,
        kernelmode_process_percent: load.currentLoadSystem,
        idle_mode_percent: load.currentLoadIdle,
        io_completion_percent: null,
        servicing_irq_percent: load.currentLoadIrq,
        servicing_softirq_percent: null,
        user_time_percent: null,
        processor_time_percent: null,
        privileged_time_percent: null,
        interrupt_time_percent: null,
      },
    ];
  },
});

export const pgSysIoAnalysisInfo = hostProbe({
  name: "pg_sys_io_analysis_info",
  systemStatsSelect: `device_name::text, total_reads::float8, total_writes::float8, read_bytes::float8,
  write_bytes::float8, read_time_ms::float8, write_time_ms::float8`,
  order: "device_name",
  async local() {
    // systeminformation totals over all block devices: one row for the whole host.
    const io = await disksIO();
    return io
      ? [
          {
            device_name: "all",
            total_reads: io.rIO,
            total_writes: io.wIO,
            read_bytes: null,
            write_bytes: null,
            read_time_ms: io.rWaitTime,
            write_time_ms: io.wWaitTime,
          },
        ]
      : [];
  },
});

export const pgSysLoadAvgInfo = hostProbe({
  name: "pg_sys_load_avg_info",
  systemStatsSelect: `load_avg_one_minute::float8, load_avg_five_minutes::float8, load_avg_ten_minutes::float8,
  load_avg_fifteen_minutes::float8`,
  async local() {
    const [one, five, fifteen] = loadavg();
    return [
      {
        load_avg_one_minute: one,
        load_avg_five_minutes: five,
        load_avg_ten_minutes: null,
        load_avg_fifteen_minutes: fifteen,
      },
    ];
  },
});

export const pgSysProcessInfo = hostProbe({
  name: "pg_sys_process_info",
  systemStatsSelect: `total_processes::int, running_processes::int, sleeping_processes::int,
  stopped_processes::int, zombie_processes::int`,
  async local() {
    const info = await readProcesses();
    const inState = (state: string) => info.list.filter((process) => process.state === state).length;
    return [
      {
        total_processes: info.all,
        running_processes: info.running,
        sleeping_processes: info.sleeping,
        stopped_processes: inState("stopped"),
        zombie_processes: inState("zombie"),
      },
    ];
  },
});

export const pgSysNetworkInfo = hostProbe({
  name: "pg_sys_network_info",
  systemStatsSelect: `interface_name::text, ip_address::text, tx_bytes::float8, tx_packets::float8,
  tx_errors::float8, tx_dropped::float8, rx_bytes::float8, rx_packets::float8, rx_errors::float8,
  rx_dropped::float8, link_speed_mbps::int`,
  order: "interface_name",
  async local() {
    const [stats, interfaces] = await Promise.all([networkStats("*"), networkInterfaces()]);
    const list = Array.isArray(interfaces) ? interfaces : [interfaces];
    return stats
      .map((stat) => {
        const info = list.find((candidate) => candidate.iface === stat.iface);
        return {
          interface_name: stat.iface,
          ip_address: info?.ip4 || info?.ip6 || null,
          tx_bytes: stat.tx_bytes,
          tx_packets: null,
          tx_errors: stat.tx_errors,
          tx_dropped: stat.tx_dropped,
          rx_bytes: stat.rx_bytes,
          rx_packets: null,
          rx_errors: stat.rx_errors,
          rx_dropped: stat.rx_dropped,
          link_speed_mbps: positiveOrNull(info?.speed),
        };
      })
      .sort((a, b) => a.interface_name.localeCompare(b.interface_name));
  },
});

/** Processes of the host by CPU then memory use; the busiest ones only when there are many. */
const PROCESS_ROWS = 100;

export const pgSysCpuMemoryByProcess = hostProbe({
  name: "pg_sys_cpu_memory_by_process",
  systemStatsSelect: `pid::int, name::text, running_since_seconds::float8, cpu_usage::float8,
  memory_usage::float8, memory_bytes::float8`,
  order: "pid",
  async local() {
    const info = await readProcesses();
    const now = Date.now();
    return [...info.list]
      .sort((a, b) => b.cpu - a.cpu || b.memRss - a.memRss)
      .slice(0, PROCESS_ROWS)
      .map((process) => {
        const started = Date.parse(process.started.replace(" ", "T"));
        return {
          pid: process.pid,
          name: process.name,
          running_since_seconds: Number.isNaN(started)
            ? null
            : Math.max(0, Math.floor((now - started) / 1000)),
          cpu_usage: process.cpu,
          memory_usage: process.mem,
          memory_bytes: process.memRss * 1024,
        };
      })
      .sort((a, b) => a.pid - b.pid);
  },
});
