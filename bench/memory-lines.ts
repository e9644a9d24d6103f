// The bench processes (api, collector, alerter) report their memory on stdout, one JSON line every
// `everyMs`, for the benchmark that started them to read: resident set and V8 heap, in bytes.

export interface MemoryLine {
  event: "memory";
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

export function reportMemoryEvery(everyMs: number): void {
  // The benchmark that reads these lines is gone (its pipe closed): so is the point of running on.
  process.stdout.on("error", () => process.exit(1));
  setInterval(() => {
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    const line: MemoryLine = { event: "memory", rss, heapUsed, heapTotal, external };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }, everyMs).unref();
}

/** The memory line `line` holds, if it is one. */
export function memoryLine(line: string): MemoryLine | undefined {
  if (!line.startsWith('{"event":"memory"')) {
    return undefined;
  }
  return JSON.parse(line) as MemoryLine;
}
