import { streamLlmChat } from "@dbmon/contract";
import type { ChatStreamEvent } from "@dbmon/llm";
import { streamSSE } from "hono/streaming";
import { implement } from "../../http/operations.js";
import { CHAT_FAILED, presentUsage } from "../../llm/proxy.js";

export const streamLlmChatHandler = implement(streamLlmChat, async (c) => {
  const { llmProxy } = c.get("services");
  const input = c.req.valid("json");
  const client = llmProxy.chatClient(input);
  // Aborted when the client goes away, whichever way the server notices it.
  const upstream = new AbortController();
  c.req.raw.signal.addEventListener("abort", () => upstream.abort(), { once: true });
  const request = await llmProxy.completionRequest(input, c.get("access"), upstream.signal);
  // Errors until the first event are ordinary JSON errors; the stream starts with that event.
  const events = await llmProxy.stream(client, request);
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => upstream.abort());
    // Failures are answered here: Hono's own error handling would send the raw message.
    try {
      for await (const event of events) {
        if (upstream.signal.aborted) {
          break;
        }
        await sse.writeSSE({
          event: event.type,
          data: JSON.stringify(payload(event, input.debug, client.provider)),
        });
      }
    } catch {
      if (!upstream.signal.aborted) {
        await sse.writeSSE({ event: "error", data: JSON.stringify({ error: CHAT_FAILED }) });
      }
    }
  });
});

function payload(event: ChatStreamEvent, debug: boolean | undefined, provider: string) {
  switch (event.type) {
    case "delta":
      return { text: event.text };
    case "tool_use":
      return { id: event.id, name: event.name, input: event.input };
    case "done":
      return {
        stop_reason: event.stopReason,
        ...(debug ? { token_usage: presentUsage(provider, event.usage) } : {}),
      };
  }
}
