import type { InboxTarget } from '@bridle/inbox'
import type { TurnEndReason } from '@bridle/session'
import { emitAgentEvent, turnStopping } from '../vocabulary/agent-events.js'
import { abortedCompaction, compactionTurn, nothingToCompact } from './compaction-turn.js'
import { enterStep } from '../stations/enter-step.js'
import { failureOf } from '../vocabulary/failure.js'
import { propose } from '../stations/propose-step.js'
import { running, type AgentRuntime } from '../stations/runtime.js'
import { runStep } from '../stations/step.js'
import type { CompactionOutcome, StepEnding } from '../vocabulary/types.js'
import { DEFAULT_MAX_STEPS } from '../vocabulary/agent.js'

export { failureOf } from '../vocabulary/failure.js'

/**
 * One turn (docs/step-pipeline.md#the-turn-loop): `turn/start`, then proposals (first `next-turn`, then `next-step`)
 * and steps until an ending holds with nothing steered in, then `turn/end` with the reason. Resolves `true` when the
 * same driver should run another turn (the turn ended normally and input is pending), `false` to stop. Failures are
 * reported (session events, `agent/error`), never thrown — except an abort before the turn began, which leaves no
 * events and rejects.
 */
export async function runTurn(rt: AgentRuntime): Promise<boolean> {
  const phase = running(rt)
  const signal = phase.abort.signal
  signal.throwIfAborted()
  const turn = phase.turn + 1
  if (skipImpossibleCompaction(rt)) return false
  try {
    rt.session.append('turn/start', { turn })
  } catch (error) {
    emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn: phase.turn, step: phase.step, error })
    // a waiting agent.compact() must not wait for a turn the log cannot open
    for (const waiting of rt.compaction.waiting.splice(0)) {
      waiting.resolve({ kind: 'failed', turn, step: 0, reason: 'manual', failure: failureOf(error) })
    }
    return false
  }
  phase.turn = turn

  // A compaction step's outcome only speaks to the step right after it, in the same turn.
  rt.compaction.previous = undefined
  // `agent.compact()` is served between conversation turns, by a turn of its own that claims nothing.
  const manual = rt.compaction.waiting.length > 0 ? rt.compaction.waiting.splice(0) : undefined
  let outcome: CompactionOutcome | undefined
  let exit: TurnExit
  try {
    if (manual !== undefined) {
      outcome = await compactionTurn(rt, turn, signal)
      exit = exits.compacted()
    } else {
      exit = await steps(rt, turn, signal)
    }
  } catch (error) {
    if (manual !== undefined) outcome = abortedCompaction(rt, turn, signal, error)
    if (signal.aborted) {
      exit = exits.aborted(signal)
    } else {
      exit = exits.failed(error)
      emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn, step: phase.step, error })
    }
  }

  const more = closeTurn(rt, turn, exit)
  for (const waiting of manual ?? []) {
    // A driver that goes on claims whatever the caller sends next; one that stops must be idle first.
    if (more) waiting.resolve(outcome!)
    else rt.compaction.settle.push(() => waiting.resolve(outcome!))
  }
  return more
}

/**
 * Answers the waiting `agent.compact()` calls `skipped`, before any turn opens, when no compaction can be made (no
 * policy is loaded, or the history is empty): a turn that could only say so would be a phantom in the log. True when
 * nothing else is pending, so the driver stops with nothing written (the calls resolve once it is idle, as a stopping
 * driver's do); with input pending they resolve now and the conversation turn runs.
 */
function skipImpossibleCompaction(rt: AgentRuntime): boolean {
  if (rt.compaction.waiting.length === 0) return false
  const reason = nothingToCompact(rt)
  if (reason === undefined) return false
  const outcome: CompactionOutcome = { kind: 'skipped', reason }
  const goesOn = rt.inbox.hasPending
  for (const waiting of rt.compaction.waiting.splice(0)) {
    emitAgentEvent(rt.ctx, rt.agent, 'agent/compacted', { outcome })
    if (goesOn) waiting.resolve(outcome)
    else rt.compaction.settle.push(() => waiting.resolve(outcome))
  }
  return !goesOn
}

/** How a turn ended (its `turn/end` reason), and whether the driver stops after it even with input pending. */
interface TurnExit {
  readonly reason: TurnEndReason
  readonly stop: boolean
}

/** The ways a turn ends. */
const exits = {
  /** `agent/pre-step` rejected the proposed step: the turn is blocked and the driver stops. */
  blocked: (): TurnExit => ({ reason: { kind: 'blocked' }, stop: true }),
  /** The turn's first proposal entered nothing: an empty, completed turn, and the driver stops. */
  nothingEntered: (): TurnExit => ({ reason: { kind: 'completed' }, stop: true }),
  /** The last step's ending (`completed`, `max-tokens`) held with nothing steered in; the driver may go on. */
  ended: (ending: StepEnding): TurnExit => ({ reason: { kind: ending ?? 'completed' } as TurnEndReason, stop: false }),
  /** A manual compaction turn ran its compaction step; the driver may go on. */
  compacted: (): TurnExit => ({ reason: { kind: 'completed' }, stop: false }),
  /**
   * The turn opened its `maxSteps` steps and is owed another (tool results, steered input): it ends before anything
   * more is claimed, and the driver stops, so a model that calls a tool at every step cannot run on in a new turn.
   */
  maxSteps: (steps: number): TurnExit => ({ reason: { kind: 'max-steps', steps }, stop: true }),
  /** The turn was cancelled; the driver stops. */
  aborted: (signal: AbortSignal): TurnExit => ({ reason: { kind: 'aborted', reason: signal.reason }, stop: true }),
  /** The turn failed; the driver stops. */
  failed: (error: unknown): TurnExit => ({ reason: { kind: 'error', error: failureOf(error) }, stop: true }),
}

/**
 * The proposals and steps of a conversation turn (docs/step-pipeline.md#the-turn-loop): first `next-turn`, then
 * `next-step`, until an ending holds with nothing steered in. Returns how the turn ended; throws on a turn error.
 */
async function steps(rt: AgentRuntime, turn: number, signal: AbortSignal): Promise<TurnExit> {
  const phase = running(rt)
  let ending: StepEnding = null
  let stepped = false
  let target: InboxTarget = 'next-turn'
  const cap = rt.agent.options.maxSteps ?? DEFAULT_MAX_STEPS
  for (;;) {
    signal.throwIfAborted()
    // the cap is checked before the claim, so the input a capped turn leaves (tool contexts, steers) stays pending
    if (stepped && phase.step >= cap) return exits.maxSteps(phase.step)
    const step = phase.step + 1
    const { decision, assembly } = await propose(rt, target, turn, step, signal)
    if (decision.kind === 'reject') return exits.blocked()
    const enters = decision.messages.length > 0
    if (!enters && ending !== null) return exits.ended(ending)
    if (!enters && !stepped) return exits.nothingEntered()
    signal.throwIfAborted()
    const result = await enterStep(rt, turn, step, decision.messages, () => runStep(rt, assembly, turn, step, signal))
    stepped = true
    ending = ending === 'max-tokens' ? 'max-tokens' : result
    signal.throwIfAborted()
    if (ending !== null && (await nothingSteeredIn(rt, turn, signal))) return exits.ended(ending)
    target = 'next-step'
  }
}

/**
 * Whether the turn may end after a step with an ending: nothing waits in `next-step`, also after the
 * `agent/turn-stopping` listeners (which may steer something in) ran.
 */
async function nothingSteeredIn(rt: AgentRuntime, turn: number, signal: AbortSignal): Promise<boolean> {
  if (rt.inbox.nextStep.length > 0) return false
  await turnStopping(rt.ctx, rt.agent, turn, signal)
  signal.throwIfAborted()
  return rt.inbox.nextStep.length === 0
}

/**
 * Appends `turn/end` and says whether the same driver runs another turn: only after a normal ending, and only for
 * pending input or a waiting `agent.compact()`.
 */
function closeTurn(rt: AgentRuntime, turn: number, { reason, stop }: TurnExit): boolean {
  const phase = running(rt)
  try {
    rt.session.append('turn/end', { turn, reason })
  } catch (error) {
    emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn, step: phase.step, error })
    return false
  }
  if (stop || (!rt.inbox.hasPending && rt.compaction.waiting.length === 0)) return false
  phase.abort = new AbortController()
  phase.wakeRequested = false
  phase.step = 0
  return true
}
