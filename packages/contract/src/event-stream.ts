import { z } from "@hono/zod-openapi";

/** The events of one server-sent event stream: each event's name and the schema of its data (JSON). */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** The data an event of the stream carries, as sent (the schema's input). */
export type EventData<E extends EventSchemas, Name extends keyof E> = z.input<E[Name]>;

/** One event of a stream as its schemas describe it: its name and its parsed data. */
export type StreamEvent<E extends EventSchemas> = {
  [Name in keyof E & string]: { event: Name; data: z.output<E[Name]> };
}[keyof E & string];

/**
 * The schema of a `text/event-stream` response: one event of the stream as the object
 * `{event, data}`, one variant per event. On the wire each event is an `event:` line with its name
 * and a `data:` line with its data as JSON; the OpenAPI document lists the variants under `name`.
 */
export function eventStreamSchema<const E extends EventSchemas>(
  name: string,
  description: string,
  events: E,
) {
  const variants = Object.entries(events).map(([event, data]) => z.object({ event: z.literal(event), data }));
  const [first, ...rest] = variants;
  if (!first) {
    throw new Error(`${name} has no events`);
  }
  return z.discriminatedUnion("event", [first, ...rest]).openapi(name, {
    description:
      `${description} Each event is an \`event:\` line with its name and a \`data:\` line with its ` +
      "data as JSON; this schema describes one event as the object {event, data}.",
  }) as unknown as z.ZodType<StreamEvent<E>, StreamEvent<E>>;
}
