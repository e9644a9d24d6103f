/** The value limits of one run; spentBytes grows as rows are kept. */
export interface RowLimits {
  maxCellBytes: number;
  maxResultBytes: number;
  spentBytes: number;
}

/**
 * A row as text cells within the limits: each value cut to maxCellBytes (at a character boundary),
 * and undefined when the row would take the run past maxResultBytes (it is then not kept).
 */
export function toLimitedRow(
  values: unknown[],
  limits: RowLimits,
): { cells: (string | null)[]; cut: boolean } | undefined {
  let cut = false;
  let bytes = 0;
  const cells = values.map((value) => {
    const text = toText(value);
    if (text === null) {
      return null;
    }
    const encoded = Buffer.from(text, "utf8");
    if (encoded.length <= limits.maxCellBytes) {
      bytes += encoded.length;
      return text;
    }
    cut = true;
    const end = characterBoundary(encoded, limits.maxCellBytes);
    bytes += end;
    return encoded.subarray(0, end).toString("utf8");
  });
  if (limits.spentBytes + bytes > limits.maxResultBytes) {
    return undefined;
  }
  limits.spentBytes += bytes;
  return { cells, cut };
}

/** The largest end ≤ max that does not split a UTF-8 sequence (continuation bytes are 10xxxxxx). */
function characterBoundary(encoded: Buffer, max: number): number {
  let end = max;
  while (end > 0 && ((encoded[end] as number) & 0xc0) === 0x80) {
    end--;
  }
  return end;
}

/** How a value reads on the wire: ISO timestamps, hex bytea, JSON for arrays and objects. */
function toText(value: unknown): string | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  if (Buffer.isBuffer(value)) {
    return `\\x${value.toString("hex")}`;
  }
  if (typeof value === "object") {
    return JSON.stringify(value);
  }
  return String(value);
}
