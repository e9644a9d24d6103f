const DAY_MS = 24 * 60 * 60 * 1000;
const unitDays: Record<string, number> = { h: 1 / 24, d: 1, w: 7, m: 30, y: 365 };
const MAX_DAYS = 3650;

/**
 * Parses a token lifetime: `<n>h`, `<n>d`, `<n>w`, `<n>m` (30 days), `<n>y` (365 days), or
 * `never`/empty for no expiry. Returns the expiry time, or a reason the text is not a lifetime.
 */
export function parseExpiry(
  text: string | undefined,
  now: Date,
): { expiresAt: Date | null } | { problem: string } {
  const value = (text ?? "").trim().toLowerCase();
  if (value === "" || value === "never") {
    return { expiresAt: null };
  }
  const match = /^(\d+)([hdwmy])$/.exec(value);
  if (!match) {
    return { problem: "use a number followed by h, d, w, m or y (for example 30d), or never" };
  }
  const amount = Number(match[1]);
  const days = amount * (unitDays[match[2] as string] as number);
  if (amount <= 0) {
    return { problem: "the duration must be positive" };
  }
  if (days > MAX_DAYS) {
    return { problem: `the duration must be at most ${MAX_DAYS} days` };
  }
  return { expiresAt: new Date(now.getTime() + days * DAY_MS) };
}
