import type { EventData, EventSchemas } from "@dbmon/contract";
import type { Context } from "hono";

/** One server-sent event; `data` is a single line (JSON). */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * An event of a stream the contract defines (`events`, its event name → data schema): the name
 * must be one of the stream's and the data must fit that event's schema, so no builder can send
 * an event the contract does not describe.
 */
export function contractEvent<E extends EventSchemas, Name extends keyof E & string>(
  events: E,
  event: Name,
  data: EventData<E, Name>,
  id?: string,
): ServerSentEvent {
  if (!Object.hasOwn(events, event)) {
    throw new Error(`${event} is not an event of this stream`);
  }
  return { event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) };
}

const NOT_YET = Symbol("not yet");

/** Resolves after the event loop's next turn: what is already in memory has been processed by then. */
function nextTurn(): Promise<typeof NOT_YET> {
  return new Promise((resolve) => setImmediate(resolve, NOT_YET));
}

/**
 * Resolves after the event loop has polled for I/O once more (an immediate queued by an immediate
 * runs in the next iteration): other sockets, the reader's too when it shares the process, get
 * their turn.
 */
async function afterNextPoll(): Promise<void> {
  await nextTurn();
  await nextTurn();
}

function frame({ event, data, id }: ServerSentEvent): string {
  return `event: ${event}\ndata: ${data}\n${id === undefined ? "" : `id: ${id}\n`}\n`;
}

/**
 * A `text/event-stream` response of the events an iterator yields, for streams of many small
 * events (a model's tokens). The first event is written alone, and nothing more is read until the
 * event loop has polled again, so it leaves at once even when a burst follows; after it, the events
 * that are ready together (a burst the provider sent in one packet) are written at once, one chunk
 * instead of one per event. Nothing is read ahead of the reader (backpressure reaches the source).
 * `onCancel` is told when the client goes away; the iterator is then returned.
 *
 * (Hono's `streamSSE` passes every event through two web streams and a write of its own: several
 * times the cost of relaying a token, and a burst left the process only after its last event.)
 */
export function eventStream(
  c: Context,
  events: AsyncIterable<ServerSentEvent>,
  onCancel: () => void,
): Response {
  const source = events[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let pending: Promise<IteratorResult<ServerSentEvent>> | undefined;
  let written = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (written === 1) {
          await afterNextPoll();
        }
        const next = await (pending ?? source.next());
        pending = undefined;
        if (next.done) {
          controller.close();
          return;
        }
        let text = frame(next.value);
        let done = false;
        if (written > 0) {
          const turn = nextTurn();
          while (true) {
            const candidate = source.next();
            const ready = await Promise.race([candidate, turn]);
            if (ready === NOT_YET) {
              pending = candidate;
              break;
            }
            if (ready.done) {
              done = true;
              break;
            }
            text += frame(ready.value);
          }
        }
        written += 1;
        controller.enqueue(encoder.encode(text));
        if (done) {
          controller.close();
        }
      },
      async cancel() {
        onCancel();
        await source.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return c.newResponse(body, 200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
    // Chunked from the start: the Node adapter then sends the headers at once instead of first
    // waiting for the body's opening chunks.
    "Transfer-Encoding": "chunked",
    // No buffering by a reverse proxy (nginx).
    "X-Accel-Buffering": "no",
  });
}
