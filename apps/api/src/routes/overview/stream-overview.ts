import { overviewStreamEvents, streamOverview } from "@dbmon/contract";
import { streamSSE } from "hono/streaming";
import { contractEvent } from "../../http/event-stream.js";
import { implement } from "../../http/operations.js";

export const streamOverviewHandler = implement(streamOverview, async (c) => {
  const overview = c.get("services").overview;
  // Refusals (400, 404, 503) are answered before the stream starts.
  const subscription = await overview.subscribe(c.get("access"), c.req.valid("query"));
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => subscription.close());
    try {
      while (!stream.aborted && !stream.closed) {
        const next = await subscription.next(overview.keepaliveMs);
        if (next === "closed") {
          break;
        }
        if (next === "idle") {
          await stream.write(":keepalive\n\n");
        } else {
          await stream.writeSSE(contractEvent(overviewStreamEvents, "overview", next, next.generated_at));
        }
      }
    } finally {
      subscription.close();
    }
  }) as never;
});
