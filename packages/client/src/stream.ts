import { createParser, type EventSourceMessage } from "eventsource-parser";
import { DbmonNetworkError } from "./errors.js";

/** One server-sent event: its name, its JSON-parsed data and its id. */
export interface SseEvent<Name extends string = string, Data = unknown> {
  event: Name;
  data: Data;
  id?: string;
}

export interface StreamOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Reopen the stream when it drops, sending `Last-Event-ID` (milliseconds to wait before, unless
   * the server sent `retry:`). Off by default; on for the overview stream.
   */
  reconnect?: boolean | { delay?: number };
}

/** An open event stream: iterate it with `for await`; `close()` (or the signal) ends it. */
export interface EventStream<E> extends AsyncIterable<E> {
  close(): void;
}

/**
 * Iterates the events of `open()`'s response, reopening with the last event id when asked to.
 * The first response is awaited before this returns, so a refused request throws here.
 */
export async function readEvents<E>(
  open: (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>,
  options: StreamOptions,
): Promise<EventStream<E>> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) {
    stop();
  }
  let lastEventId: string | undefined;
  let delay = typeof options.reconnect === "object" ? (options.reconnect.delay ?? 1000) : 1000;
  let response: Response | undefined = await open(undefined, controller.signal);

  /** Opens the stream again after a drop, waiting and retrying while the server cannot be reached. */
  async function reopen(): Promise<Response | undefined> {
    while (!controller.signal.aborted) {
      try {
        return await open(lastEventId, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) {
          break;
        }
        if (!(error instanceof DbmonNetworkError)) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    return undefined;
  }

  async function* events(): AsyncGenerator<E> {
    try {
      while (!controller.signal.aborted) {
        const current = response ?? (await reopen());
        response = undefined;
        if (!current) {
          return;
        }
        const queue: EventSourceMessage[] = [];
        const parser = createParser({
          onEvent: (message) => queue.push(message),
          onRetry: (ms) => {
            delay = ms;
          },
        });
        const reader = current.body?.pipeThrough(new TextDecoderStream()).getReader();
        try {
          while (reader) {
            const { done, value } = await reader.read();
            if (done) {
              break;
            }
            parser.feed(value);
            for (const message of queue.splice(0)) {
              if (message.id !== undefined) {
                lastEventId = message.id;
              }
              yield { event: message.event ?? "message", data: parse(message.data), id: message.id } as E;
            }
          }
        } catch (error) {
          if (options.signal?.aborted) {
            throw options.signal.reason;
          }
          if (controller.signal.aborted) {
            return;
          }
          if (!options.reconnect) {
            throw error;
          }
        } finally {
          // The body is locked by the decoder's pipe: cancelling the reader cancels the pipe and,
          // through it, the body, which frees the socket (cancelling the body itself would fail).
          await reader?.cancel().catch(() => {});
          reader?.releaseLock();
        }
        if (!options.reconnect || controller.signal.aborted) {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } finally {
      options.signal?.removeEventListener("abort", stop);
      controller.abort();
    }
  }

  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close() {
      controller.abort();
      void iterator.return(undefined);
    },
  };
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
