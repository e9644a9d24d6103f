import { z } from "zod";
import { defineTool, text } from "../tool.js";

export const generateEmbedding = defineTool({
  name: "generate_embedding",
  privilege: "generate_embedding",
  description:
    "Compute the embedding vector of a text with the configured embedding provider (OpenAI, Voyage, Gemini or Ollama). Returns the model, the dimension count and the vector as a JSON array. Use it to build a pgvector query by hand.",
  compactDescription: "Embedding vector of a text.",
  input: { text: z.string().min(1).max(100_000).describe("Text to embed") },
  async run(context, args) {
    const result = await context.services.llmProxy.embed({ input: args.text }, context.signal);
    const vector = result.embeddings[0] ?? [];
    return text(
      `model: ${result.model} (${result.provider})\ndimensions: ${vector.length}\n${JSON.stringify(vector)}`,
    );
  },
});

export const llmTools = [generateEmbedding];
