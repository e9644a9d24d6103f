import { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import { messages } from "../auth/access.js";
import { DomainError, OperationFailed } from "../errors.js";
import type { Logger } from "../logger.js";
import {
  failure,
  type Tool,
  type ToolContext,
  type ToolDescriptor,
  type ToolResult,
  type Tools,
} from "./tool.js";
import { activityTools } from "./tools/activity.js";
import { alertingTools } from "./tools/alerting.js";
import { datastoreTools } from "./tools/datastore.js";
import { healthTools } from "./tools/health.js";
import { indexAdvisorTools } from "./tools/index-advisor.js";
import { knowledgeBaseTools } from "./tools/knowledge-base.js";
import { llmTools } from "./tools/llm.js";
import { memoryTools } from "./tools/memories.js";
import { monitoringTools } from "./tools/monitoring.js";
import { resourceTools } from "./tools/resources.js";
import { similarityTools } from "./tools/similarity.js";
import { sqlTools } from "./tools/sql.js";

/** Every tool dbmon serves, over /mcp/v1 and the REST bridge alike. */
export const allTools: readonly Tool[] = [
  ...sqlTools,
  ...indexAdvisorTools,
  ...similarityTools,
  ...monitoringTools,
  ...activityTools,
  ...healthTools,
  ...datastoreTools,
  ...alertingTools,
  ...memoryTools,
  ...llmTools,
  ...knowledgeBaseTools,
  ...resourceTools,
];

export const TOOL_EXECUTION_FAILED = "Tool execution failed";

/**
 * The MCP tool catalogue: what a caller may list and call. Both transports (/mcp/v1 and the REST
 * bridge) go through `list` and `call`, so the checks are the same everywhere: the caller's MCP
 * privileges and the token's scope on every call (superusers' tokens included), then the tool's own
 * connection check for tools bound to a connection.
 */
export class ToolCatalogue implements Tools {
  private readonly descriptors: ReadonlyMap<string, ToolDescriptor>;

  constructor(
    private readonly deps: { logger: Logger; tools?: readonly Tool[] },
    private readonly tools: readonly Tool[] = deps.tools ?? allTools,
  ) {
    this.descriptors = new Map(this.tools.map((tool) => [tool.name, describe(tool)]));
  }

  /** The tools the caller may use, with their input schemas. */
  async list(access: RequestAccess): Promise<ToolDescriptor[]> {
    await access.requireCaller();
    const allowed = await Promise.all(this.tools.map((tool) => this.mayUse(access, tool)));
    return this.tools
      .filter((_, at) => allowed[at])
      .map((tool) => this.descriptors.get(tool.name) as ToolDescriptor);
  }

  /**
   * Runs a tool for the caller. Refusals and the tool's own errors are results with `isError`; an
   * unexpected failure is logged and becomes OperationFailed("Tool execution failed").
   */
  async call(context: ToolContext, name: string, args: unknown): Promise<ToolResult> {
    await context.access.requireCaller();
    const tool = this.tools.find((candidate) => candidate.name === name);
    if (!tool) {
      return failure(`Tool not found: ${name}`);
    }
    if (!(await this.mayUse(context.access, tool))) {
      return failure(messages.mcp(name));
    }
    // Keys the tool does not declare are dropped, not refused (D18): models add keys, and a refusal
    // makes them retry the same call until their iteration limit.
    const parsed = z.object(tool.input).safeParse(args ?? {});
    const ignored = undeclaredKeys(tool, args);
    if (ignored.length > 0) {
      this.deps.logger.debug(
        { tool: name, keys: ignored },
        "MCP tool arguments not declared by the tool ignored",
      );
    }
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`,
      );
      return failure(`Invalid arguments for ${name}: ${problems.join("; ")}`);
    }
    try {
      return await tool.run(context, parsed.data);
    } catch (error) {
      if (error instanceof DomainError) {
        return failure(error.message);
      }
      this.deps.logger.error(
        { tool: name, err: error instanceof Error ? error.message : String(error) },
        "MCP tool failed",
      );
      throw new OperationFailed(TOOL_EXECUTION_FAILED);
    }
  }

  private async mayUse(access: RequestAccess, tool: Tool): Promise<boolean> {
    return tool.privilege === null || access.mayUseMcp(tool.privilege);
  }
}

/** At most this many undeclared keys are logged, each cut to this many characters (the input is the caller's). */
const LOGGED_KEYS = 20;
const LOGGED_KEY_LENGTH = 64;

/** The argument keys a tool does not declare, as logged. */
function undeclaredKeys(tool: Tool, args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [];
  }
  return Object.keys(args)
    .filter((key) => !Object.hasOwn(tool.input, key))
    .slice(0, LOGGED_KEYS)
    .map((key) => key.slice(0, LOGGED_KEY_LENGTH));
}

function describe(tool: Tool): ToolDescriptor {
  const {
    $schema: _,
    additionalProperties: __,
    ...schema
  } = z.toJSONSchema(z.object(tool.input), {
    io: "input",
  }) as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    compactDescription: tool.compactDescription,
    inputSchema: {
      ...schema,
      type: "object",
      properties: (schema.properties ?? {}) as Record<string, unknown>,
    },
  };
}
