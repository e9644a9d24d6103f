import { z } from "zod";
import { DEFAULT_TOP_N, MAX_TOP_N } from "../../knowledge-base/service.js";
import { defineTool, failure, text, tsvOfObjects } from "../tool.js";

export const searchKnowledgebase = defineTool({
  name: "search_knowledgebase",
  privilege: "search_knowledgebase",
  description:
    "Search the documentation shipped with dbmon: its README and guides (authentication and RBAC, security, operations, clusters, MCP), the probe catalogue (what each probe collects, its columns and metrics table) and the built-in alert rules (metric, threshold, severity). Full-text search, best match first: sections holding every word of the query rank above those holding some. Each result gives its source file or catalogue, the section title, a rank, a snippet with the matched words in **bold** and the section's text. Use it to answer how dbmon works or is configured, what a probe or alert rule measures, before guessing. `list_products: true` lists the projects and versions covered instead.",
  compactDescription: "Search dbmon's documentation, probes and alert rules.",
  input: {
    query: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe("What to look for (required unless list_products)"),
    project_names: z
      .array(z.string().min(1))
      .max(20)
      .optional()
      .describe("Only these projects (see list_products)"),
    project_versions: z.array(z.string().min(1)).max(20).optional().describe("Only these versions"),
    top_n: z.number().int().min(1).max(MAX_TOP_N).default(DEFAULT_TOP_N).describe("Results returned"),
    list_products: z.boolean().default(false).describe("List the projects and versions instead of searching"),
  },
  async run(context, args) {
    const { knowledgeBase } = context.services;
    if (args.list_products) {
      const products = await knowledgeBase.products();
      return text(
        tsvOfObjects(
          products.map((product) => ({ ...product, sources: product.sources.join(", ") })),
          "The knowledge base is empty",
        ),
      );
    }
    if (!args.query) {
      return failure("query is required unless list_products is true");
    }
    const matches = await knowledgeBase.search({
      query: args.query,
      projectNames: args.project_names,
      projectVersions: args.project_versions,
      topN: args.top_n,
    });
    if (matches.length === 0) {
      return text(`No documentation matches "${args.query}"`);
    }
    return text(
      matches
        .map(
          (match, at) =>
            `[${at + 1}] ${match.title}\nsource: ${match.source} (${match.project_name} ${match.project_version}); rank ${match.rank}\nsnippet: ${match.snippet.replace(/\s+/g, " ")}\n\n${match.content}`,
        )
        .join("\n\n---\n\n"),
    );
  },
});

export const knowledgeBaseTools = [searchKnowledgebase];
