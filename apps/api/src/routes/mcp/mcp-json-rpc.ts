import { mcpJsonRpc } from "@dbmon/contract";
import { answerMcpRequest } from "../../http/mcp-endpoint.js";
import { implement } from "../../http/operations.js";

// The SDK's transport answers (JSON-RPC responses, 202 to notifications); the contract describes them.
export const mcpJsonRpcHandler = implement(mcpJsonRpc, (c) => answerMcpRequest(c) as never);
