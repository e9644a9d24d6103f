import { chatStreamEvents, streamLlmChat } from "@dbmon/contract";
import type { ChatStreamEvent } from "@dbmon/llm";
import { DomainError } from "../../errors.js";
import { contractEvent, eventStream, type ServerSentEvent } from "../../http/event-stream.js";
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
  const events = await llmProxy.stream(client, request, c.get("access"));
  // Failures are answered here as an `error` event: Hono's own error handling would send the raw message.
  async function* served(): AsyncGenerator<ServerSentEvent> {
    try {
      for await (const event of events) {
        if (upstream.signal.aborted) {
          break;
        }
        yield clientEvent(event, input.debug, client.provider);
      }
    } catch (error) {
      if (!upstream.signal.aborted) {
        // The proxy's refusals say what happened (a time limit, say) in words safe to show.
        const message = error instanceof DomainError ? error.message : CHAT_FAILED;
        yield contractEvent(chatStreamEvents, "error", { error: message });
      }
    }
  }
  return eventStream(c, served(), () => upstream.abort());
});

/** The event the client is sent for one event of the provider's stream. */
function clientEvent(event: ChatStreamEvent, debug: boolean | undefined, provider: string): ServerSentEvent {
  switch (event.type) {
    case "delta":
      return contractEvent(chatStreamEvents, "delta", { text: event.text });
    case "tool_use":
      return contractEvent(chatStreamEvents, "tool_use", {
        id: event.id,
        name: event.name,
        input: event.input,
      });
    case "done":
      return contractEvent(chatStreamEvents, "done", {
        stop_reason: event.stopReason,
        ...(debug ? { token_usage: presentUsage(provider, event.usage) } : {}),
      });
  }
}
