import { z } from "zod";
import { rowIdArgument } from "../arguments.js";
import { readResource, resources } from "../resources.js";
import { defineTool, failure, text, tsv } from "../tool.js";

export const readResourceTool = defineTool({
  name: "read_resource",
  privilege: "read_resource",
  description:
    "Read one of dbmon's MCP resources by URI, or list them with `list: true`: pg://system_info (PostgreSQL version, OS and architecture of a connection) and pg://connection_info (a connection's details), of `connection_id` or else the selected connection. For clients that cannot read MCP resources directly.",
  compactDescription: "Read or list MCP resources.",
  input: {
    uri: z.string().min(1).optional().describe("Resource URI, such as pg://system_info"),
    connection_id: rowIdArgument
      .optional()
      .describe("The connection to read about; defaults to the selected connection"),
    list: z.boolean().default(false).describe("List the resources instead"),
  },
  async run(context, args) {
    if (args.list || !args.uri) {
      if (!args.list) {
        return failure("Give a uri, or list: true");
      }
      return text(
        tsv(
          ["uri", "name", "description"],
          resources.map((r) => [r.uri, r.name, r.description]),
        ),
      );
    }
    const content = await readResource(context, args.uri, args.connection_id);
    return content.text.startsWith("Access denied:") ? failure(content.text) : text(content.text);
  },
});

export const resourceTools = [readResourceTool];
