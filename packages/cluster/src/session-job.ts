import type { Context } from 'cordis'
import { rawService } from '@bridle/scope'
import type { SessionPostgres } from '@bridle/session-postgres'
import { resumeInterrupted, type InterruptibleAgent, type Interruption } from './continuation.js'

/** The part of `@bridle/agent-loop`'s `Agent` a job drives. */
export interface ServedAgent extends InterruptibleAgent {
  readonly id: string
  readonly status: 'idle' | 'running'
  readonly inbox: InterruptibleAgent['inbox'] & { readonly hasPending: boolean }
  readonly session: InterruptibleAgent['session'] & { readonly events: readonly unknown[] }
  whenIdle(): Promise<void>
  wake(): boolean
  dispose(): Promise<void>
}

/** What serving one session needs. */
export interface JobServices {
  readonly ctx: Context
  readonly persistence: SessionPostgres
  /** Options every resumed agent gets (`provider`, `model`, `maxTokens`). */
  readonly agentOptions: Record<string, unknown>
  /** True once the worker is shutting down: a job then ends at the session's next quiet moment. */
  readonly stopping: () => boolean
  /** How long a quiet session is kept for its next message before the job ends (0: end at once). */
  readonly lingerMs: number
  /** After this long, a job ends at the session's next quiet moment without lingering (the next job queues last). */
  readonly maxJobMs: number
  /** Whether other sessions' jobs wait for a worker: a job then ends at once instead of lingering. */
  readonly othersWaiting: () => Promise<boolean>
  readonly warn: (message: string) => void
}

/** How a job ended for the session. */
export type Served = { kind: 'served'; interruption?: Interruption } | { kind: 'missing' }

/**
 * Flushes the session, retrying while the database is unreachable (session-postgres keeps the events and retries
 * too). Resolves `false` when the session's lease was lost to another process: nothing more can be written.
 */
async function flushed(
  services: JobServices,
  sessions: { flush(session: unknown): Promise<boolean> },
  agent: ServedAgent,
): Promise<boolean> {
  for (let pause = 50; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      await sessions.flush(agent.session)
      return true
    } catch (error) {
      if ((error as { name?: string }).name === 'SessionLeaseLostError') return false
      services.warn(`cluster: flushing session "${agent.id}" failed (retrying): ${String(error)}`)
      await sleep(pause)
    }
  }
}

/**
 * Keeps a quiet session a little longer (`lingerMs`), since its next message often follows its answer closely:
 * serving it in this job saves the next job a resume. Only while no other session's job waits for a worker, so a
 * lingering session never keeps another one waiting. Resolves `true` when input arrived (delivered to the agent,
 * which holds the lease), `false` when the wait ran out, others wait, the job has run `maxJobMs`, or the worker is
 * stopping.
 */
async function lingered(
  services: JobServices,
  agent: ServedAgent,
  started: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (services.lingerMs <= 0 || Date.now() - started >= services.maxJobMs) return false
  if (await services.othersWaiting().catch(() => true)) return false
  const until = Date.now() + services.lingerMs
  while (Date.now() < until && !services.stopping() && !signal.aborted) {
    if (agent.status === 'running' || agent.inbox.hasPending) return true
    await sleep(5)
  }
  return agent.status === 'running' || agent.inbox.hasPending
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How long a job waits for another process to give a session's lease up before it hands the job back. */
const RESUME_PATIENCE_MS = 60_000

/**
 * Resumes the session, waiting for its lease while another process still holds it: a dead worker's lease lapses
 * at its expiry, a live one's is released when it finishes. `undefined` when the session does not exist.
 */
async function resume(services: JobServices, id: string, signal: AbortSignal): Promise<ServedAgent | undefined> {
  const loop = services.ctx.get('agentLoop') as { resume(id: string, o: object): Promise<ServedAgent> }
  let pause = 25
  const giveUp = Date.now() + RESUME_PATIENCE_MS
  for (;;) {
    signal.throwIfAborted()
    try {
      return await loop.resume(id, { ...services.agentOptions, signal })
    } catch (error) {
      const e = error as { name?: string; message?: string; expiresAt?: Date }
      if (e.message === `session "${id}" not found`) return undefined
      // A holder that keeps renewing is alive: the job goes back to the queue and is retried later.
      if (e.name !== 'SessionLeasedError' || Date.now() > giveUp) throw error
      // Poll quickly (a release is usually milliseconds away), never past the holder's expiry by much.
      const untilExpiry = (e.expiresAt?.getTime() ?? Date.now()) - Date.now() + 5
      await sleep(Math.max(5, Math.min(pause, untilExpiry)))
      pause = Math.min(pause * 2, 500)
    }
  }
}

/**
 * Serves one session for one job: resumes its agent (the log repaired, an interrupted turn closed), puts back what
 * an interrupted turn left undone, lets the waiting messages in, and runs turns until the agent is idle with an empty
 * inbox and every event is durable. Then it disposes the agent — in the same synchronous step as the last check, so
 * no delivery can slip a message in between — which gives the session's lease back. Messages posted after that
 * stay in the database for the next job.
 */
export async function serveSession(services: JobServices, id: string, signal: AbortSignal): Promise<Served> {
  const resumedFrom = performance.now()
  const agent = await resume(services, id, signal)
  if (agent === undefined) return { kind: 'missing' }
  const sessions = rawService<{ flush(session: unknown): Promise<boolean> }>(services.ctx, 'sessions')!
  try {
    return await serveResumed(services, agent, sessions, signal, resumedFrom)
  } catch (error) {
    // Unexpected: give the session back (its lease with it) rather than keep it from the job's next worker.
    await agent.dispose().catch(() => undefined)
    throw error
  }
}

/** The part of `serveSession` after the resume. */
async function serveResumed(
  services: JobServices,
  agent: ServedAgent,
  sessions: { flush(session: unknown): Promise<boolean> },
  signal: AbortSignal,
  resumedFrom: number,
): Promise<Served> {
  const id = agent.id
  const started = Date.now()
  const interruption = resumeInterrupted(agent)
  // Every message posted before the resume began is in the inbox once a pass that read after it is done (the one
  // the agent's start ran, usually); later ones arrive through NOTIFY.
  await services.persistence.deliver(id, { after: resumedFrom })
  agent.wake()
  for (;;) {
    // Input posted from here on reaches the agent through its NOTIFY-driven delivery; a message whose delivery is
    // lost or comes too late stays waiting in the database, and the job's completion enqueues the next job for it.
    await agent.whenIdle()
    const count = agent.session.events.length
    if (!(await flushed(services, sessions, agent))) break // taken over: the new holder serves it
    const quiet = () => agent.status === 'idle' && !agent.inbox.hasPending && agent.session.events.length === count
    if (quiet() && !(await lingered(services, agent, started, signal))) {
      if (quiet()) break // checked in the same synchronous step as the dispose below
    }
    agent.wake()
  }
  await agent.dispose()
  return interruption === undefined ? { kind: 'served' } : { kind: 'served', interruption }
}
