import { errorChain } from '@bridle/llm'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { isHttp, type NamedServerConfig } from './config.js'

/** True for errors the server sent as a JSON-RPC error response (the connection itself is fine). */
export function isServerError(error: unknown): error is McpError {
  return (
    error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed
  )
}

/**
 * The message a JSON-RPC error carried, without the `MCP error <code>: ` prefixes the SDK adds (once on the server
 * when it builds the error, once more on the client when it reads it).
 */
export function serverMessage(error: McpError): string {
  return error.message.replace(/^(?:MCP error -?\d+: )+/, '')
}

/** True for the SDK's own request timeout. */
export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout
}

/** True when a result did not match the expected shape (the SDK rejects with the zod error). */
export function isShapeError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues)
}

/** How the server is reached, for messages: the command line or the URL. */
function whereOf(config: NamedServerConfig): string {
  return isHttp(config) ? config.url : [config.command, ...config.args].join(' ')
}

/**
 * A fault in words, for the warning and `mcp/status`: `failed to start (<command>): <why>` or `stopped: <why>`.
 * A startup timeout names the limit and the config field that sets it.
 */
export function describeFault(config: NamedServerConfig, fault: unknown, phase: 'start' | 'stopped'): string {
  const cause = fault instanceof ServerFault && fault.cause !== undefined ? fault.cause : fault
  const why = isTimeout(cause)
    ? `it did not answer within ${config.startupTimeoutMs} ms (startupTimeoutMs)`
    : errorChain(cause)
  return phase === 'start' ? `failed to start (${whereOf(config)}): ${why}` : `stopped: ${why}`
}

/** A fault of the server process, with what it last wrote to stderr (stdio servers). */
export class ServerFault extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ServerFault'
  }
}

/** `\nserver stderr (last lines):\n…` for a fault that carries stderr output, else ''. */
export function stderrNote(fault: unknown): string {
  const text = fault instanceof ServerFault ? fault.stderr.trim() : ''
  if (text === '') return ''
  return `\nserver stderr (last lines):\n${text.split('\n').slice(-5).join('\n')}`
}
