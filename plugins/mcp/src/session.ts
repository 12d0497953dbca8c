import { holdSecrets, holdUrlSecrets, knownSecrets, namedCredentials } from '@bridle/llm'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { resolve } from 'node:path'
import type { Stream } from 'node:stream'
import { isHttp, type NamedServerConfig } from './config.js'
import { messageOf } from './errors.js'
import { guardChild } from './child-guard.js'
import { ServerFault } from './faults.js'
import { listAllTools, type RawTool } from './listing.js'

/** The client name and version this plugin announces in `initialize`. */
export const CLIENT_INFO = { name: 'bridle', version: '0.0.0' } as const

const STDERR_TAIL = 2048

/**
 * One live connection to one MCP server: an SDK `Client` on a stdio child process or a Streamable HTTP endpoint.
 * It ends exactly once — the child exits, the HTTP transport fails, or the owner calls `end` — and `ended`
 * resolves with the reason. A session is never reused after it ends; reconnecting opens a new one.
 */
export class McpSession {
  readonly client: Client
  /** The child process id of a stdio server (while it runs). */
  readonly pid: number | undefined
  /** Resolves with why the session ended. */
  readonly ended: Promise<Error>
  /** The reason, once ended. */
  endReason: Error | undefined

  private readonly transport: Transport
  private readonly exited: Promise<void>
  private stderr = ''
  private closing: Promise<void> | undefined
  private settle!: (reason: Error) => void

  private constructor(client: Client, transport: Transport, pid: number | undefined, exited: Promise<void>) {
    this.client = client
    this.transport = transport
    this.pid = pid
    this.exited = exited
    this.ended = new Promise<Error>((resolve) => (this.settle = resolve))
  }

  /**
   * Starts the server (or reaches it), runs `initialize` and lists its tools, each request within `startupTimeoutMs`.
   * `onListChanged` is called for every `notifications/tools/list_changed`; `signal` abandons the start. Rejects
   * when any of that fails, after closing what it started, so a failed start leaves no child behind.
   */
  static async open(
    config: NamedServerConfig,
    onListChanged: (session: McpSession) => void,
    signal: AbortSignal,
  ): Promise<{ session: McpSession; tools: RawTool[] }> {
    // the server's credentials (its URL's, named headers and environment variables) are Bridle's to keep out of logs
    if (isHttp(config)) {
      holdUrlSecrets(config.url)
      holdSecrets(...namedCredentials(config.headers))
    } else holdSecrets(...namedCredentials(config.env))
    const client = new Client({ ...CLIENT_INFO }, { capabilities: {} })
    let stderrStream: Stream | null = null
    let transport: Transport
    if (isHttp(config)) {
      transport = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        // a broken SSE stream is a fault of the session; the plugin reconnects on its own terms
        reconnectionOptions: {
          maxRetries: 0,
          initialReconnectionDelay: 1000,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
        },
      })
    } else {
      const stdio = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        ...(config.cwd === undefined ? {} : { cwd: resolve(config.cwd) }),
        stderr: 'pipe',
      })
      stderrStream = stdio.stderr
      transport = stdio
    }
    let markExited!: () => void
    const exited = new Promise<void>((resolve) => (markExited = resolve))
    let session: McpSession | undefined
    let closedEarly = false
    client.onclose = () => {
      markExited()
      if (session) session.end(new Error('the server closed the connection'))
      else closedEarly = true
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (session) onListChanged(session)
    })
    let tail = ''
    stderrStream?.on('data', (chunk: Buffer) => {
      // redacted before it is cut: a key the server prints must not survive as a suffix (docs/security.md)
      tail = knownSecrets()
        .redact(tail + chunk.toString('utf8'))
        .slice(-STDERR_TAIL)
      if (session) session.stderr = tail
    })
    try {
      signal.throwIfAborted()
      await client.connect(transport, { timeout: config.startupTimeoutMs, signal })
      session = new McpSession(client, transport, (transport as { pid?: number | null }).pid ?? undefined, exited)
      if (session.pid !== undefined) void exited.then(guardChild(session.pid))
      session.stderr = tail
      if (closedEarly) throw new Error('the server closed the connection')
      const tools = await listAllTools(client, config.startupTimeoutMs, signal)
      if (session.endReason) throw session.endReason
      return { session, tools }
    } catch (error) {
      const failed =
        session ?? new McpSession(client, transport, (transport as { pid?: number | null }).pid ?? undefined, exited)
      failed.stderr = tail
      await failed.close(error instanceof Error ? error : new Error(messageOf(error)))
      throw new ServerFault(messageOf(error), tail, { cause: error })
    }
  }

  /** The last lines the server wrote to stderr (stdio only), for warnings. */
  get stderrTail(): string {
    return this.stderr
  }

  /** Marks the session ended with `reason` (the first reason wins) and starts closing it. */
  end(reason: Error): void {
    if (this.endReason) return
    this.endReason = reason
    this.settle(reason)
    this.closing = (async () => {
      if (this.transport instanceof StreamableHTTPClientTransport) {
        await withTimeout(
          this.transport.terminateSession().catch(() => undefined),
          2000,
        )
      }
      await this.client.close().catch(() => undefined)
      // stdio: the client reports the close once the child has exited (stdin is closed first; the SDK escalates to
      // SIGTERM, then SIGKILL, if the child lingers), so awaiting it means no child is left
      await this.exited
    })()
  }

  /** Ends the session (if it has not ended) and resolves once it is closed: for stdio, once the child has exited. */
  close(reason = new Error('closed')): Promise<void> {
    this.end(reason)
    return this.closing!
  }
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
