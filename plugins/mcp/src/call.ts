import { errorChain } from '@bridle/llm'
import type { ToolReturn, ToolRunContext } from '@bridle/tools'
import { z } from 'zod'
import type { NamedServerConfig } from './config.js'
import { McpToolError, messageOf } from './errors.js'
import { isServerError, isShapeError, isTimeout, serverMessage } from './faults.js'
import type { ListedTool } from './listing.js'
import { mapCallResult, type McpCallResult } from './result.js'
import type { McpSession } from './session.js'

/**
 * A `tools/call` result, read leniently: content items of types newer than this plugin still arrive (and are
 * described to the model) instead of failing the whole call, and `structuredContent` is kept exactly as sent.
 */
const CallResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  structuredContent: z
    .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
    .optional(),
  isError: z.boolean().optional(),
})

/**
 * Runs one MCP tool for a Bridle call on the live session and maps the result (see `mapCallResult`). The call's
 * signal (the turn's, in the agent loop) cancels the request: the SDK sends `notifications/cancelled` to the
 * server. Every failure becomes an `McpToolError` whose message names the server and the tool, so the model reads
 * what happened: not connected, the connection closed mid-call, a timeout (which also asks for a health check via
 * `onTimeout`), a JSON-RPC error, or an unreachable server (which ends the session, so it reconnects).
 */
export async function callTool(
  config: NamedServerConfig,
  session: McpSession | undefined,
  /** Why there may be no live session, for the message: still starting, reconnecting after a fault, or closed. */
  down: 'starting' | 'reconnecting' | 'closed' | undefined,
  tool: ListedTool,
  args: Record<string, unknown>,
  exec: ToolRunContext,
  onTimeout: (why: string) => void,
): Promise<ToolReturn> {
  const server = `MCP server "${config.name}"`
  if (session === undefined || session.endReason !== undefined) {
    const notes = {
      starting: ' (it is still starting)',
      reconnecting: ' (it is down; the plugin is reconnecting)',
      closed: ' (it was closed)',
    }
    const note = down === undefined ? '' : notes[down]
    throw new McpToolError(
      `${server} is not connected${note}, so "${tool.mcpName}" cannot run now`,
      'SERVER_UNAVAILABLE',
    )
  }
  // a per-call controller, so the turn's signal does not collect one SDK listener per call
  const controller = new AbortController()
  const forward = () => controller.abort(exec.signal.reason)
  if (exec.signal.aborted) forward()
  else exec.signal.addEventListener('abort', forward, { once: true })
  try {
    const result = await session.client.request(
      { method: 'tools/call', params: { name: tool.mcpName, arguments: args } },
      CallResultSchema,
      {
        signal: controller.signal,
        timeout: config.callTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      },
    )
    return mapCallResult(result as McpCallResult, config.images)
  } catch (error) {
    if (error instanceof McpToolError) throw error
    if (exec.signal.aborted) {
      throw new McpToolError(
        `the call to "${tool.mcpName}" was cancelled (the request was cancelled on ${server})`,
        'ABORTED',
        { cause: error },
      )
    }
    // read again: the session may have ended while the request was out
    const ended = session.endReason as Error | undefined
    if (ended !== undefined) {
      throw new McpToolError(
        `${server} closed the connection while "${tool.mcpName}" was running: ${ended.message}`,
        'SERVER_UNAVAILABLE',
        { cause: error },
      )
    }
    if (isTimeout(error)) {
      onTimeout(`a ping after a call to "${tool.mcpName}" timed out`)
      throw new McpToolError(
        `${server} did not answer the call to "${tool.mcpName}" within ${config.callTimeoutMs} ms (callTimeoutMs)`,
        'TIMEOUT',
        {
          cause: error,
        },
      )
    }
    if (isServerError(error)) {
      throw new McpToolError(
        `${server} refused the call to "${tool.mcpName}": ${serverMessage(error)} (JSON-RPC error ${error.code})`,
        'PROTOCOL_ERROR',
        {
          cause: error,
        },
      )
    }
    if (isShapeError(error)) {
      throw new McpToolError(
        `${server} answered the call to "${tool.mcpName}" with a malformed result: ${messageOf(error)}`,
        'PROTOCOL_ERROR',
        { cause: error },
      )
    }
    // the request never got an answer from the transport (an HTTP server that went away, a broken pipe)
    session.end(new Error(`a request failed: ${errorChain(error)}`))
    throw new McpToolError(
      `${server} could not be reached for "${tool.mcpName}": ${errorChain(error)}`,
      'SERVER_UNAVAILABLE',
      { cause: error },
    )
  } finally {
    exec.signal.removeEventListener('abort', forward)
  }
}
