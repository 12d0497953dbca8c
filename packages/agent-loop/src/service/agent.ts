import { Inbox } from '@bridle/inbox'
import type { UserMessage } from '@bridle/llm'
import { createScope, type Scope } from '@bridle/scope'
import { RequestDigester, type AgentCancelCause, type Session } from '@bridle/session'
import type { Context } from 'cordis'
import { emitAgentEvent, warn } from '../vocabulary/agent-events.js'
import type { ResolvedAgentLoopConfig } from '../vocabulary/config.js'
import { RuntimeContextProjection } from '../stations/runtime-context.js'
import type { AgentRuntime, RunningPhase } from '../stations/runtime.js'
import { runTurn } from '../turn/turn.js'
import type { SessionObservers } from './session-observers.js'
import type { AgentOptions, AgentStatus, CompactionOutcome } from '../vocabulary/types.js'

/** What the AgentLoop hands an Agent it constructs. Not part of the public API. */
export interface AgentInit {
  /** The loop's config. */
  config: ResolvedAgentLoopConfig
  /** The AgentLoop's own context: the agent scope mounts under it. */
  loopCtx: Context
  session: Session
  options: AgentOptions
  /** Called once at the end of `dispose()`: leave the registry, detach the session, drop the owner effect. */
  release(agent: Agent): void
  /** The loop's `session/event` router. */
  observers: SessionObservers
}

const ABORT_SETUP = Symbol('bridle.agent.abortSetup')

/** This module's class, named so the merge below can extend it. */
type AgentClass = Agent

declare module '../vocabulary/agent.js' {
  /** The vocabulary's agent is this class: every `agent` the types, events and stations name is one. */
  interface Agent extends AgentClass {}
}

/**
 * Loop-internal rollback of a failed publication: marks the agent disposed and disposes its scope
 * synchronously, without waiting or releasing (the loop undoes its own publication steps).
 */
export function abortSetup(agent: Agent): void {
  agent[ABORT_SETUP]()
}

function lastTurnOf(session: Session): number {
  const events = session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return (event.data as { turn: number }).turn
  }
  return 0
}

/**
 * One agent: a session, an inbox, an agent-local scope (`agent.ctx`) and a driver that runs turns.
 * Constructed by `ctx.agentLoop` (never directly by apps). `agent.id === agent.session.id`.
 */
export class Agent {
  readonly id: string
  readonly options: Readonly<AgentOptions>
  readonly session: Session
  readonly inbox: Inbox
  /** Agent-local context: what is registered through it is visible to this agent only and dies with it. */
  readonly ctx: Context
  readonly #rt: AgentRuntime
  readonly #scope: Scope
  readonly #release: (agent: Agent) => void
  #activity: Promise<void> | undefined
  #lastStatus: AgentStatus = 'idle'
  #disposeStarted = false
  #disposed = false
  #disposing: Promise<void> | undefined

  /** Replays the inbox, restores the turn counter, mounts the scope, restores the snapshot projection. */
  constructor(init: AgentInit) {
    this.id = init.session.id
    this.options = Object.freeze({ ...init.options })
    this.session = init.session
    this.#release = init.release
    const loopCtx = init.loopCtx
    this.inbox = new Inbox(init.session, {
      inserted: (message) => emitAgentEvent(loopCtx, this, 'agent/inbox/inserted', { message }),
      discarded: (message) => emitAgentEvent(loopCtx, this, 'agent/inbox/discarded', { message }),
      claimed: (message, turn) => emitAgentEvent(loopCtx, this, 'agent/inbox/claimed', { message, turn }),
    })
    const lastTurn = lastTurnOf(init.session)
    this.#scope = createScope(loopCtx, this)
    this.ctx = this.#scope.ctx.extend({ agent: this })
    const projection = new RuntimeContextProjection(init.session)
    this.#rt = {
      agent: this,
      config: init.config,
      ctx: loopCtx,
      session: init.session,
      inbox: this.inbox,
      projection,
      requests: { headerLogged: false, digester: new RequestDigester() },
      compaction: { waiting: [], previous: undefined, settle: [] },
      phase: { kind: 'idle', lastTurn },
    }
    init.observers.observe(this.ctx, init.session, (event) => projection.observe(event))
  }

  /** `running` while a driver runs turns, else `idle`. */
  get status(): AgentStatus {
    return this.#rt.phase.kind
  }

  /** Queues a prompt for the next turn and wakes the driver. Throws if the durable append throws. */
  followup(message: UserMessage): void {
    this.#send(message, 'next-turn', true)
  }

  /** Queues steering for the next step (of this turn, or the next one) and wakes the driver. */
  steer(message: UserMessage): void {
    this.#send(message, 'next-step', true)
  }

  /** Stages a message for the next step without waking: an idle agent only records it. */
  inject(message: UserMessage): void {
    this.#send(message, 'next-step', false)
  }

  /**
   * Starts a turn for input that is already pending, when the agent is idle: a resumed agent's inbox is restored
   * from its log (messages spliced but never claimed before a crash), and restoring it starts nothing by itself.
   * Returns whether a turn started; nothing happens while running, disposing, or with an empty inbox.
   */
  wake(): boolean {
    const phase = this.#rt.phase
    if (phase.kind !== 'idle' || this.#disposeStarted || !this.inbox.hasPending) return false
    this.#start(phase.lastTurn)
    return true
  }

  /**
   * Compacts the history now, through the loaded compaction policy (`agent/compaction` with `manual: true`), in a
   * turn of its own that claims nothing: right away when idle, after the current turn when running. Resolves with
   * the outcome (`compacted`, `failed` with the history untouched, or `skipped` with the reason, e.g. no policy is
   * loaded); it never rejects, except when the agent is disposed. `cancel()` resolves waiting calls as `skipped`.
   */
  compact(): Promise<CompactionOutcome> {
    if (this.#disposeStarted) return Promise.reject(new Error(`agent "${this.id}" is disposed`))
    return new Promise<CompactionOutcome>((resolve) => {
      this.#rt.compaction.waiting.push({ resolve })
      const phase = this.#rt.phase
      if (phase.kind === 'idle') this.#start(phase.lastTurn)
    })
  }

  /**
   * Cancels: unless `keepInbox`, clears the inbox durably first (even when idle) and drops a latched
   * wake; then aborts the running turn with `cause`. The first cause wins. Waiting `compact()` calls
   * resolve as `skipped`.
   */
  cancel(cause: AgentCancelCause, options: { keepInbox?: boolean } = {}): void {
    let clearError: unknown
    let clearFailed = false
    const phase = this.#rt.phase
    if (!options.keepInbox) {
      try {
        this.inbox.clear()
      } catch (error) {
        clearFailed = true
        clearError = error
      }
      if (phase.kind === 'running') phase.wakeRequested = false
    }
    if (phase.kind === 'running' && !phase.abort.signal.aborted) phase.abort.abort(cause)
    for (const waiting of this.#rt.compaction.waiting.splice(0))
      waiting.resolve({ kind: 'skipped', reason: 'cancelled' })
    if (clearFailed) throw clearError
  }

  /** Resolves once the driver is idle, following replay drivers that start right after one settles. */
  async whenIdle(): Promise<void> {
    while (this.#rt.phase.kind === 'running') {
      await (this.#activity ?? Promise.resolve())
    }
  }

  /**
   * Memoized teardown: cancel with `{kind:'disposed'}`, wait for idle, dispose the scope (agent-local
   * registrations vanish), leave the registry (`agent/disposed`), detach the session.
   */
  dispose(): Promise<void> {
    this.#disposing ??= this.#dispose()
    return this.#disposing
  }

  /** Whether `dispose()` has been called (the agent may still be winding down). */
  get disposing(): boolean {
    return this.#disposeStarted
  }

  /** @internal */
  [ABORT_SETUP](): void {
    this.#disposeStarted = true
    this.#disposed = true
    this.#disposing ??= Promise.resolve()
    this.#scope.rawDispose()
  }

  async #dispose(): Promise<void> {
    this.#disposeStarted = true
    try {
      this.cancel({ kind: 'disposed' })
    } catch (error) {
      warn(this.#rt.ctx, `agent "${this.id}": clearing the inbox on dispose failed: ${String(error)}`)
    }
    await this.whenIdle()
    try {
      await this.#scope.dispose()
    } finally {
      // Even if tearing down the scope threw, the agent must not stay listed or keep its session attached.
      this.#disposed = true
      this.#release(this)
    }
  }

  #send(message: UserMessage, target: 'next-turn' | 'next-step', wakes: boolean): void {
    if (this.#disposed) throw new Error(`agent "${this.id}" is disposed`)
    const phase = this.#rt.phase
    const wakingAfterAbort = wakes && phase.kind === 'running' && phase.abort.signal.aborted
    this.inbox.splice(wakingAfterAbort ? 'next-turn' : target, Infinity, 0, [message])
    if (wakes) this.#wake(wakingAfterAbort)
  }

  #wake(wakingAfterAbort: boolean): void {
    const phase = this.#rt.phase
    if (phase.kind === 'idle') {
      if (!this.#disposeStarted) this.#start(phase.lastTurn)
      return
    }
    const reason = phase.abort.signal.reason as { kind?: unknown } | undefined
    if (wakingAfterAbort && reason?.kind !== 'disposed') phase.wakeRequested = true
  }

  #start(lastTurn: number): void {
    const phase: RunningPhase = {
      kind: 'running',
      abort: new AbortController(),
      turn: lastTurn,
      step: 0,
      wakeRequested: false,
    }
    this.#rt.phase = phase
    this.#emitStatus('running')
    this.#activity = this.#drive()
  }

  /** Runs turns while they ask for more, then goes idle and replays a latched wake. */
  async #drive(): Promise<void> {
    try {
      while (await runTurn(this.#rt)) {
        // the same driver opens the next turn for pending input
      }
    } catch {
      // failures are already reported; an abort before the turn began leaves no events
    }
    const phase = this.#rt.phase as RunningPhase
    this.#rt.phase = { kind: 'idle', lastTurn: phase.turn }
    this.#emitStatus('idle')
    for (const settle of this.#rt.compaction.settle.splice(0)) settle()
    // An idle listener may already have woken a new driver; a latched wake only replays onto an idle agent.
    const replay = (phase.wakeRequested && this.inbox.hasPending) || this.#rt.compaction.waiting.length > 0
    if (replay && this.#rt.phase.kind === 'idle' && !this.#disposeStarted) {
      this.#start(phase.turn)
    }
  }

  #emitStatus(status: AgentStatus): void {
    if (status === this.#lastStatus) return
    this.#lastStatus = status
    emitAgentEvent(this.#rt.ctx, this, 'agent/status', { status })
  }
}
