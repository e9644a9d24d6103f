import { isDeepStrictEqual } from "node:util";
import type { z } from "zod";

/** One server-sent event as received: its name, its data parsed as JSON and its id. */
export interface ReceivedEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** One frame of a `text/event-stream` body (its lines, without the blank line that ends it). */
export function parseFrame(frame: string): ReceivedEvent {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") {
      event = value;
    } else if (field === "data") {
      data.push(value);
    } else if (field === "id") {
      id = value;
    }
  }
  return { event, data: JSON.parse(data.join("\n")), ...(id === undefined ? {} : { id }) };
}

/**
 * One frame, checked against the contract's schema of the stream's events (`ChatStreamSchema`,
 * `OverviewStreamSchema`): an event whose name or data the contract does not describe fails the test.
 */
export function contractEvent<S extends z.ZodType>(frame: string, schema: S): z.output<S> & { id?: string } {
  const { id, ...event } = parseFrame(frame);
  const checked = schema.safeParse(event);
  if (!checked.success) {
    throw new Error(`an event the contract does not describe: ${frame}\n${checked.error.message}`);
  }
  // Parsing drops keys the schema does not list: an event with more than it describes fails too.
  if (!isDeepStrictEqual(checked.data, event)) {
    throw new Error(`an event with data the contract does not describe: ${frame}`);
  }
  return { ...event, ...(id === undefined ? {} : { id }) } as unknown as z.output<S> & { id?: string };
}

/** Every event of a whole `text/event-stream` body (comments skipped), each checked as `contractEvent` does. */
export function contractEvents<S extends z.ZodType>(
  text: string,
  schema: S,
): (z.output<S> & { id?: string })[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "" && !frame.startsWith(":"))
    .map((frame) => contractEvent(frame, schema));
}
