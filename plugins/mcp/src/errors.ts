import { HarnessError } from '@bridle/llm'

/**
 * Why an MCP tool call did not succeed. The tool registry turns it into the result text `Error: <message>` (which
 * the model reads) and keeps `{ name: 'McpToolError', code }` as durable error info. Codes:
 * - `TOOL_ERROR`: the server ran the tool and reported `isError` (the message is the server's own text);
 * - `PROTOCOL_ERROR`: the server answered the request with a JSON-RPC error (unknown tool, invalid arguments, …);
 * - `SERVER_UNAVAILABLE`: the server is not connected, or its connection closed while the call ran;
 * - `TIMEOUT`: no answer within `callTimeoutMs`;
 * - `ABORTED`: the caller's signal (the turn's) was aborted; the request was cancelled on the server.
 */
export class McpToolError extends HarnessError {
  constructor(message: string, code: McpToolErrorCode, options?: { cause?: unknown }) {
    super(message, code, options)
    this.name = 'McpToolError'
  }
}

export type McpToolErrorCode = 'TOOL_ERROR' | 'PROTOCOL_ERROR' | 'SERVER_UNAVAILABLE' | 'TIMEOUT' | 'ABORTED'

/** The message of any thrown value, for warnings. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message
  }
  return String(error)
}
