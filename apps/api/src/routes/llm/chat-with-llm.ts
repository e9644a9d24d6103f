import { chatWithLlm } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentUsage } from "../../llm/proxy.js";

export const chatWithLlmHandler = implement(chatWithLlm, async (c) => {
  const { llmProxy } = c.get("services");
  const input = c.req.valid("json");
  const client = llmProxy.chatClient(input);
  const request = await llmProxy.completionRequest(input, c.get("access"), c.req.raw.signal);
  const answer = await llmProxy.chat(client, request);
  return c.json(
    {
      content: answer.content,
      stop_reason: answer.stopReason,
      ...(input.debug ? { token_usage: presentUsage(client.provider, answer.usage) } : {}),
    },
    200,
  );
});
