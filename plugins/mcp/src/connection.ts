import { errorChain } from '@bridle/llm'
import type { ToolReturn, ToolRunContext } from '@bridle/tools'
import type { Context } from 'cordis'
import { backoffDelay } from './backoff.js'
import { callTool } from './call.js'
import { isHttp, type NamedServerConfig } from './config.js'
import { messageOf } from './errors.js'
import { describeFault, isTimeout, ServerFault, stderrNote } from './faults.js'
import { listAllTools, toListedTools, type ListedTool, type RawTool } from './listing.js'
import { McpSession } from './session.js'
import { ToolSet, type ToolDiff } from './tool-set.js'

/** Where a server stands: starting, serving tools, down (maybe waiting to reconnect), or closed for good. */
export type McpServerState = 'connecting' | 'ready' | 'failed' | 'closed'

/** The payload of `mcp/status`. */
export interface McpServerStatus {
  readonly server: string
  readonly state: McpServerState
  /** Process id of the stdio child, while one runs (`connecting` once spawned is not reported; `ready` is). */
  readonly pid?: number
  /** Bridle names of the tools registered now, in code-unit order. */
  readonly tools: readonly string[]
  /** Faults since the server was last ready (0 while ready). */
  readonly attempt: number
  /** On `failed`: what went wrong, as in the warning. */
  readonly error?: string
  /** On `failed`: when the next attempt starts; absent when the plugin gave up. */
  readonly retryInMs?: number
}

/** The payload of `mcp/tools`: one applied listing that changed something. */
export interface McpToolsUpdate extends Omit<ToolDiff, 'refused'> {
  readonly server: string
}

declare module 'cordis' {
  interface Events {
    /** A server changed state: connecting, ready, failed (with the reason and the retry delay), closed. */
    'mcp/status'(status: McpServerStatus): void
    /** A server's registered tools changed (a listing was applied, or the server went down). */
    'mcp/tools'(update: McpToolsUpdate): void
  }
}

/** The session being served plus its re-listing state. */
interface Live {
  readonly session: McpSession
  listing: boolean
  relistWanted: boolean
  pinging: boolean
  timer?: NodeJS.Timeout
}

/**
 * One configured server for the lifetime of its fork: connects, registers its tools through `ctx` (the server's own
 * fork), follows `notifications/tools/list_changed`, and on any fault — failed start, crash, timeout — removes its
 * tools, warns, and reconnects with backoff. `close()` ends it for good and resolves once its child has exited.
 */
export class ServerConnection {
  private readonly tools: ToolSet
  private readonly abort = new AbortController()
  private readonly warnedSkips = new Set<string>()
  private live: Live | undefined
  private state: McpServerState = 'connecting'
  /** Faults since the server was last ready. */
  private attempt = 0
  private closed = false
  private done: Promise<void> | undefined
  private wake: (() => void) | undefined
  private settleFirst!: () => void
  /** Resolves once the first connection attempt has settled: ready, failed, or closed before either. Never rejects. */
  readonly firstAttempt = new Promise<void>((resolve) => (this.settleFirst = resolve))

  constructor(
    private readonly ctx: Context,
    readonly config: NamedServerConfig,
  ) {
    this.tools = new ToolSet(ctx, (tool, args, exec) => this.call(tool, args, exec))
  }

  /** Starts connecting in the background. */
  start(): void {
    this.done ??= this.run()
  }

  /** Closes the server for good: no more reconnects; resolves once the session is closed and its child gone. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true
      this.abort.abort(new Error('the plugin was disposed'))
      this.wake?.()
      this.live?.session.end(new Error('the plugin was disposed'))
    }
    return this.done ?? Promise.resolve()
  }

  private async run(): Promise<void> {
    let attempt = 0
    while (!this.closed) {
      this.publish('connecting', attempt)
      let fault: unknown
      let wasReady = false
      let removed: string[] = []
      try {
        const { session, tools } = await McpSession.open(this.config, (s) => this.listChanged(s), this.abort.signal)
        if (this.closed) {
          await session.close(new Error('the plugin was disposed'))
          break
        }
        const live: Live = { session, listing: false, relistWanted: this.pendingRelist === session, pinging: false }
        this.live = live
        this.pendingRelist = undefined
        attempt = 0
        wasReady = true
        this.applyListing(tools)
        this.publish('ready', 0)
        this.startPinging(live)
        if (live.relistWanted) this.relist(live)
        fault = await session.ended
        if (!this.closed) fault = new ServerFault(messageOf(fault), session.stderrTail)
        clearInterval(live.timer)
        this.live = undefined
        // the tools go before the (possibly slow) close, so the next request already goes without them
        removed = this.dropTools()
        await session.close()
        if (this.closed) break
      } catch (error) {
        if (this.closed) break
        fault = error
      }
      removed = [...removed, ...this.dropTools()]
      attempt += 1
      const { maxAttempts } = this.config.reconnect
      const retryInMs =
        maxAttempts !== undefined && attempt > maxAttempts ? undefined : backoffDelay(this.config.reconnect, attempt)
      const what = describeFault(this.config, fault, wasReady ? 'stopped' : 'start')
      const toolsNote = removed.length > 0 ? `; its ${removed.length} tool(s) are removed until it is back` : ''
      const next =
        retryInMs === undefined
          ? `; giving up after ${attempt - 1} reconnect attempt(s) (reconnect.maxAttempts); reload the plugin to try again`
          : `; reconnecting in ${retryInMs} ms (attempt ${attempt})`
      const stderr = stderrNote(fault)
      this.warn(`MCP server "${this.config.name}" ${what}${toolsNote}${next}${stderr}`)
      this.publish('failed', attempt, { error: `${what}${stderr}`, ...(retryInMs === undefined ? {} : { retryInMs }) })
      // after giving up, wait for the plugin to be disposed (or reloaded)
      await this.sleep(retryInMs)
    }
    this.dropTools()
    this.publish('closed', 0)
  }

  /** Disposes every registered tool of this server (one effect each) and reports them; returns their names. */
  private dropTools(): string[] {
    const removed = this.tools.clear()
    if (removed.length > 0) this.ctx.emit('mcp/tools', { server: this.config.name, added: [], removed, changed: [] })
    return removed
  }

  /** The session a list change arrived for before it became live (during startup). */
  private pendingRelist: McpSession | undefined

  private listChanged(session: McpSession): void {
    if (this.live?.session === session) this.relist(this.live)
    else this.pendingRelist = session
  }

  /** Re-lists the tools and applies the difference; changes that arrive meanwhile trigger one more listing. */
  private relist(live: Live): void {
    if (live.listing) {
      live.relistWanted = true
      return
    }
    live.listing = true
    void (async () => {
      try {
        do {
          live.relistWanted = false
          const raw = await listAllTools(live.session.client, this.config.startupTimeoutMs, this.abort.signal)
          if (this.live !== live || this.closed) return
          this.applyListing(raw)
        } while (live.relistWanted)
      } catch (error) {
        if (this.live !== live || this.closed) return
        live.session.end(new Error(`re-listing its tools after a list change failed: ${errorChain(error)}`))
      } finally {
        live.listing = false
      }
    })()
  }

  private applyListing(raw: readonly RawTool[]): void {
    const { tools, skipped } = toListedTools(this.config.name, this.config, raw)
    for (const skip of skipped) {
      const key = `${skip.mcpName}\0${skip.reason}`
      if (this.warnedSkips.has(key)) continue
      this.warnedSkips.add(key)
      this.ctx
        .logger('mcp')
        .info(`MCP server "${this.config.name}": tool "${skip.mcpName}" is not offered to the model: ${skip.reason}`)
    }
    const diff = this.tools.apply(tools)
    for (const { name, error } of diff.refused) {
      this.warn(`MCP server "${this.config.name}": tool "${name}" could not be registered: ${messageOf(error)}`)
    }
    if (diff.added.length + diff.removed.length + diff.changed.length > 0) {
      this.ctx.emit('mcp/tools', {
        server: this.config.name,
        added: diff.added,
        removed: diff.removed,
        changed: diff.changed,
      })
    }
  }

  private startPinging(live: Live): void {
    const every = this.config.pingIntervalMs ?? (isHttp(this.config) ? 30_000 : 0)
    if (every <= 0) return
    live.timer = setInterval(() => this.checkHealth(live, 'a periodic ping'), every)
    live.timer.unref()
  }

  /** Pings the server; no answer within `pingTimeoutMs` ends the session (so it reconnects). */
  private checkHealth(live: Live, why: string): void {
    if (live.pinging || this.live !== live) return
    live.pinging = true
    live.session.client
      .ping({ timeout: this.config.pingTimeoutMs })
      .then(
        () => undefined,
        (error: unknown) => {
          if (this.live !== live || this.closed) return
          const reason = isTimeout(error)
            ? `it did not answer ${why} within ${this.config.pingTimeoutMs} ms (pingTimeoutMs)`
            : `${why} failed: ${errorChain(error)}`
          live.session.end(new Error(reason))
        },
      )
      .finally(() => (live.pinging = false))
  }

  private call(tool: ListedTool, args: Record<string, unknown>, exec: ToolRunContext): Promise<ToolReturn> {
    const down = this.closed
      ? 'closed'
      : this.attempt > 0
        ? 'reconnecting'
        : this.state === 'connecting'
          ? 'starting'
          : undefined
    return callTool(this.config, this.closed ? undefined : this.live?.session, down, tool, args, exec, (why) => {
      const live = this.live
      if (live) this.checkHealth(live, why)
    })
  }

  private publish(state: McpServerState, attempt: number, extra: { error?: string; retryInMs?: number } = {}): void {
    this.state = state
    this.attempt = attempt
    const pid = state === 'ready' ? this.live?.session.pid : undefined
    const status: McpServerStatus = {
      server: this.config.name,
      state,
      ...(pid === undefined ? {} : { pid }),
      tools: this.tools.names(),
      attempt,
      ...extra,
    }
    this.ctx.emit('mcp/status', status)
    if (state !== 'connecting') this.settleFirst()
  }

  private warn(message: string): void {
    this.ctx.logger('mcp').warn(message.replace(/%/g, '%%'))
  }

  /** Waits `ms` (forever when undefined) or until `close()` wakes it. */
  private sleep(ms: number | undefined): Promise<void> {
    if (this.closed) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer)
        this.wake = undefined
        resolve()
      }
      const timer = ms === undefined ? undefined : setTimeout(finish, ms)
      this.wake = finish
    })
  }
}
