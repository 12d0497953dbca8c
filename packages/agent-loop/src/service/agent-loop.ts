import type { Session, SessionPreparation } from '@bridle/session'
import { HomeService } from '@bridle/scope'
import type { Context } from 'cordis'
import { Agent, abortSetup } from './agent.js'
import { emitAgentEvent } from '../vocabulary/agent-events.js'
import { Config, type AgentLoopConfigInput, type ResolvedAgentLoopConfig } from '../vocabulary/config.js'
import { startConfiguredAgents } from './configured-agents.js'
import { registerLoopVariables } from './variables.js'
import { SessionObservers } from './session-observers.js'
import type { AgentOptions, CreateAgentOptions, ResumeAgentOptions } from '../vocabulary/types.js'
import { abortLoser, raceAgainst, type RaceLoser } from './abort-race.js'

declare module 'cordis' {
  interface Context {
    agentLoop: AgentLoop
  }
}

interface Entry {
  agent: Agent
  detach?: () => void
  owner?: () => void
  released: boolean
}

function agentOptionsOf(options: AgentOptions): AgentOptions {
  if (options.maxTokens !== undefined && !(Number.isSafeInteger(options.maxTokens) && options.maxTokens > 0)) {
    throw new TypeError('agent maxTokens must be a positive safe integer')
  }
  if (options.maxSteps !== undefined && !(Number.isSafeInteger(options.maxSteps) && options.maxSteps > 0)) {
    throw new TypeError('agent maxSteps must be a positive safe integer')
  }
  const out: AgentOptions = {}
  if (options.provider !== undefined) out.provider = options.provider
  if (options.model !== undefined) out.model = options.model
  if (options.maxTokens !== undefined) out.maxTokens = options.maxTokens
  if (options.maxSteps !== undefined) out.maxSteps = options.maxSteps
  return out
}

/**
 * The agent loop service (`ctx.agentLoop`): creates, resumes, lists and disposes agents, and registers
 * the `provider` / `model` / `cwd` prompt variables. An app loads it with `ctx.plugin(AgentLoop, config)`.
 */
export class AgentLoop extends HomeService<ResolvedAgentLoopConfig> {
  static inject = ['sessions', 'llm', 'tools', 'systemPrompt']
  static Config = Config

  private readonly entries = new Map<string, Entry>()
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly unloadWaiters = new Set<() => void>()
  private readonly state = { active: true }
  private readonly observers: SessionObservers

  constructor(ctx: Context, config?: AgentLoopConfigInput | null) {
    super(ctx, 'agentLoop', Config(config))
    this.observers = new SessionObservers(ctx)
    registerLoopVariables(ctx)
    startConfiguredAgents(this, ctx, this.config.agents)
  }

  /**
   * Creates an agent synchronously: prepares its session unpublished, constructs the agent, runs
   * `setup`, then publishes (`session/created`, `agent/created`, `agent/session-start` with `startup`).
   * The calling context owns it: when that plugin unloads, the agent is disposed. Any failure rolls
   * everything back and frees the id.
   */
  create(options: CreateAgentOptions = {}): Agent {
    const caller = this.ctx
    const agentOptions = agentOptionsOf(options)
    if (!this.state.active) throw new Error('agent loop is not active')
    const prepareOptions: { seed?: CreateAgentOptions['seed']; meta?: { cwd: string } } = {}
    if (options.seed !== undefined) prepareOptions.seed = options.seed
    if (options.cwd !== undefined) prepareOptions.meta = { cwd: options.cwd }
    const session = this.home.sessions.prepare(options.sessionId, prepareOptions)
    return this.publish(caller, session, agentOptions, options.setup, 'startup')
  }

  /**
   * Resumes a persisted session as a new agent (`agent/session-start` with `resume`). Rejects when no
   * persistence backend is loaded, when the id is live, on abort, on loop unload and on owner unload.
   */
  async resume(sessionId: string, options: ResumeAgentOptions = {}): Promise<Agent> {
    const caller = this.ctx
    const agentOptions = agentOptionsOf(options)
    if (!this.state.active) throw new Error('agent loop is not active')
    const persistence = this.home.get('sessionPersistence')
    if (!persistence) {
      throw new Error(
        'cannot resume: session persistence is not configured (load a session persistence backend such as @bridle/session-jsonl)',
      )
    }
    if (this.home.sessions.get(sessionId)) throw new Error(`session "${sessionId}" already exists`)
    const task = this.prepareRaced(caller, sessionId, options.signal, () =>
      persistence.prepare(sessionId, options.signal),
    )
    this.inFlight.add(task)
    let preparation: SessionPreparation
    try {
      preparation = await task
    } finally {
      this.inFlight.delete(task)
    }
    try {
      if (!this.state.active) throw new Error('agent loop is not active')
      return this.publish(caller, preparation.session, agentOptions, options.setup, 'resume')
    } finally {
      preparation[Symbol.dispose]()
    }
  }

  /** The live published agent with this id. */
  get(id: string): Agent | undefined {
    return this.entries.get(id)?.agent
  }

  /** Live published agents, in publication order. */
  list(): Agent[] {
    return [...this.entries.values()].map((e) => e.agent)
  }

  /** `get(id)?.dispose()`; resolves `false` when there is no such live agent. */
  async dispose(id: string): Promise<boolean> {
    const agent = this.get(id)
    if (!agent) return false
    await agent.dispose()
    return true
  }

  /** Unloading the loop disposes every live agent and waits for resumes still in flight. */
  protected override async stop(): Promise<void> {
    this.state.active = false
    for (const reject of [...this.unloadWaiters]) reject()
    await Promise.allSettled([...this.entries.values()].map((e) => e.agent.dispose()))
    await Promise.allSettled([...this.inFlight])
  }

  /** Whether the loop still accepts agents (false once it is unloading). */
  get active(): boolean {
    return this.state.active
  }

  /**
   * The publishing half of creation (docs/step-pipeline.md#agents): construct the agent over the unpublished session,
   * run `setup`, enter and announce the session through `agent.ctx`, enter the registry (`agent/created`, which may
   * veto), emit `agent/session-start`, and register the owner effect on `caller`. Any throw rolls back what was
   * announced (`agent/disposed`, `session/disposed`), disposes the scope and frees the id.
   */
  private publish(
    caller: Context,
    session: Session,
    options: AgentOptions,
    setup: ((agent: Agent) => void) | undefined,
    source: 'startup' | 'resume',
  ): Agent {
    let agent: Agent | undefined
    const entry: Partial<Entry> & { released: boolean } = { released: false }
    try {
      agent = new Agent({
        config: this.config,
        loopCtx: this.home,
        session,
        options,
        release: (a) => this.release(a),
        observers: this.observers,
      })
      entry.agent = agent
      setup?.(agent)
      entry.detach = agent.ctx.sessions.enter(session)
      agent.ctx.sessions.announce(session)
      this.entries.set(agent.id, entry as Entry)
      emitAgentEvent(this.home, agent, 'agent/created', {}, { veto: true })
      if (agent.disposing) throw new Error(`agent "${agent.id}" setup aborted: owner disposed during setup`)
      emitAgentEvent(this.home, agent, 'agent/session-start', { source })
      if (agent.disposing) throw new Error(`agent "${agent.id}" setup aborted: owner disposed during setup`)
      // Last: the calling context owns the agent (an inactive caller throws here and rolls back).
      const owned = agent
      entry.owner = caller.effect(() => () => {
        void owned.dispose()
      })
    } catch (error) {
      if (agent) {
        abortSetup(agent)
        if (this.entries.get(agent.id) === entry) {
          this.entries.delete(agent.id)
          emitAgentEvent(this.home, agent, 'agent/disposed', {})
        }
        entry.released = true
        entry.detach?.()
      }
      throw error
    }
    return agent
  }

  /** Leaves the registry (`agent/disposed`), detaches the session, removes the owner effect. Idempotent. */
  private release(agent: Agent): void {
    const entry = this.entries.get(agent.id)
    if (!entry || entry.agent !== agent || entry.released) return
    entry.released = true
    this.entries.delete(agent.id)
    emitAgentEvent(this.home, agent, 'agent/disposed', {})
    entry.detach?.()
    entry.owner?.()
  }

  /** Races a persistence preparation against the caller's signal, owner unload and loop unload. */
  private prepareRaced(
    caller: Context,
    id: string,
    signal: AbortSignal | undefined,
    prepare: () => Promise<SessionPreparation>,
  ): Promise<SessionPreparation> {
    const abortError = (): Error => {
      const reason: unknown = signal?.reason
      return reason instanceof Error ? reason : new Error(`agent "${id}" creation aborted`, { cause: reason })
    }
    const ownerDisposed: RaceLoser = (lose) =>
      // An inactive caller throws here, before the preparation starts.
      caller.effect(() => () => lose(new Error(`agent "${id}" setup aborted: owner disposed during setup`)))
    const loopUnloaded: RaceLoser = (lose) => {
      const onUnload = () => lose(new Error('agent loop is not active'))
      this.unloadWaiters.add(onUnload)
      return () => this.unloadWaiters.delete(onUnload)
    }
    return raceAgainst([abortLoser(signal, abortError), ownerDisposed, loopUnloaded], prepare, (late) =>
      late[Symbol.dispose](),
    )
  }
}
