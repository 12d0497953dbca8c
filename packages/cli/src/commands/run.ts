import { randomUUID } from 'node:crypto'
import { createUserMessage } from '@bridle/llm'
import type { Agent } from '@bridle/agent-loop'
import { boot, type BootedApp } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { EXIT } from '../errors.js'
import { cancelOnInterrupt } from '../interrupt.js'
import { attachLiveView } from '../live-view.js'
import { paint, type Io } from '../terminal.js'
import { resolveSessionId } from '../session-id.js'
import { checkAppPaths, checkStoredCwd, dryAssemble } from '../validate.js'

export interface RunOptions {
  config?: string
  session?: string
  model?: string
  baseUrl?: string
  provider?: string
  cwd?: string
  maxSteps?: number
}

/**
 * A new session id: sortable by time and unique across processes (the store's own `session-<n>` counter
 * only avoids ids live in this process, not ones already on disk).
 */
function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${stamp}-${randomUUID().slice(0, 6)}`
}

/** Which session the agent opens and the flags that shape it. */
export interface AgentChoice {
  session?: string
  cwd?: string
  /** `--max-steps`; else `agent.maxSteps` of the app, else the loop's default. */
  maxSteps?: number
}

/** Creates the agent, or resumes `--session ID` from persistence. */
async function openAgent(booted: BootedApp, options: AgentChoice): Promise<Agent> {
  const { ctx, app, model } = booted
  const maxSteps = options.maxSteps ?? app.agent.maxSteps
  const agentOptions = {
    ...(model ? { provider: model.provider, model: model.model } : {}),
    ...(app.agent.maxTokens ? { maxTokens: app.agent.maxTokens } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
  }
  if (options.session !== undefined) {
    const persistence = ctx.get('sessionPersistence')
    const id = persistence ? await resolveSessionId(persistence, options.session) : options.session
    if (persistence) await checkStoredCwd(persistence, id)
    return ctx.agentLoop.resume(id, agentOptions)
  }
  return ctx.agentLoop.create({
    ...agentOptions,
    sessionId: newSessionId(),
    cwd: app.agent.cwd ?? options.cwd ?? process.cwd(),
  })
}

/**
 * Opens the agent (a resumed session's cwd is checked first) and checks, before any model call, that its first step
 * can be built (`dryAssemble`). A failure disposes the agent (a new session has written nothing yet) and rethrows.
 */
export async function openCheckedAgent(booted: BootedApp, options: AgentChoice): Promise<Agent> {
  const agent = await openAgent(booted, options)
  try {
    await dryAssemble(booted.app, booted.ctx, agent)
  } catch (error) {
    await agent.dispose()
    throw error
  }
  return agent
}

/** What `turn/end` records: the kind, a failure's error, an abort's cause (`{ kind: 'user' }` for Ctrl-C). */
interface TurnEndReason {
  kind: string
  error?: { message: string; code: string }
  reason?: { kind?: string }
  steps?: number
}

/** The reason of the agent's last `turn/end`, from its log. */
function lastTurnEnd(agent: Agent): TurnEndReason | undefined {
  const events = agent.session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/end') return (event.data as { reason: TurnEndReason }).reason
  }
  return undefined
}

/**
 * Runs one prompt as one turn, streams it, flushes the session to disk. Resolves the exit code. Ctrl-C cancels the
 * turn (`cancelOnInterrupt`).
 */
export async function runPrompt(booted: BootedApp, agent: Agent, prompt: string, io: Io): Promise<number> {
  const p = paint(io)
  const model = booted.model
    ? `${booted.model.provider}/${booted.model.model}`
    : `${agent.options.provider}/${agent.options.model}`
  const detach = attachLiveView(booted.ctx, agent.id, io, { model, events: () => agent.session.events })
  const uninterruptible = cancelOnInterrupt(() => agent.cancel({ kind: 'user' }))
  try {
    agent.followup(createUserMessage(prompt))
    await agent.whenIdle()
  } finally {
    uninterruptible()
    detach()
  }
  await booted.ctx.sessions.flush(agent.session)
  const reason = lastTurnEnd(agent)
  if (reason?.kind === 'error') {
    io.err(
      `${p.red('bridle: the turn failed:')} ${reason.error?.message ?? 'unknown error'} (${reason.error?.code ?? 'UNKNOWN'})\n`,
    )
    return EXIT.failure
  }
  if (reason?.kind === 'aborted' && reason.reason?.kind === 'user') {
    io.err('bridle: the turn ended aborted (cancelled with Ctrl-C)\n')
  } else if (reason?.kind === 'max-steps') {
    io.err(
      `bridle: the turn ended max-steps: it took ${reason.steps} steps, its cap, and the model still wanted another ` +
        '(raise it with --max-steps or agent.maxSteps in bridle.yaml)\n',
    )
  } else if (reason && reason.kind !== 'completed') io.err(`bridle: the turn ended ${reason.kind}\n`)
  return reason?.kind === 'completed' ? EXIT.ok : EXIT.failure
}

/** `bridle run "prompt"`. */
export async function run(prompt: string, options: RunOptions, io: Io): Promise<number> {
  const app = await resolveApp(options.config)
  checkAppPaths(app)
  const booted = await boot(app, {
    model: options.model,
    baseUrl: options.baseUrl,
    provider: options.provider,
  })
  if (booted.model) io.err(`${booted.model.notice}\n`)
  try {
    const agent = await openCheckedAgent(booted, options)
    try {
      const code = await runPrompt(booted, agent, prompt, io)
      io.err(`bridle: session ${agent.id}\n`)
      return code
    } finally {
      await agent.dispose()
    }
  } finally {
    await booted.close()
  }
}
