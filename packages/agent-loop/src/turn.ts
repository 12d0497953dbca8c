import type { InboxTarget } from '@bridle/inbox'
import type { TurnEndReason } from '@bridle/session'
import { emitAgentEvent, turnStopping } from './agent-events.js'
import { abortedCompaction, compactionTurn } from './compaction-turn.js'
import { enterStep } from './enter.js'
import { failureOf } from './failure.js'
import { propose } from './proposal.js'
import { running, type AgentRuntime } from './runtime.js'
import { runStep } from './step.js'
import type { CompactionOutcome, StepEnding } from './types.js'

export { failureOf } from './failure.js'

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

  let reason: TurnEndReason
  let stop = false
  // A compaction step's outcome only speaks to the step right after it, in the same turn.
  rt.compaction.previous = undefined
  // `agent.compact()` is served between conversation turns, by a turn of its own that claims nothing.
  const manual = rt.compaction.waiting.length > 0 ? rt.compaction.waiting.splice(0) : undefined
  let outcome: CompactionOutcome | undefined
  try {
    if (manual !== undefined) {
      outcome = await compactionTurn(rt, turn, signal)
      reason = { kind: 'completed' }
    } else {
      ;({ reason, stop } = await steps(rt, turn, signal))
    }
  } catch (error) {
    stop = true
    if (manual !== undefined) outcome = abortedCompaction(rt, turn, signal, error)
    if (signal.aborted) {
      reason = { kind: 'aborted', reason: signal.reason }
    } else {
      reason = { kind: 'error', error: failureOf(error) }
      emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn, step: phase.step, error })
    }
  }

  const more = closeTurn(rt, turn, reason, stop)
  for (const waiting of manual ?? []) {
    // A driver that goes on claims whatever the caller sends next; one that stops must be idle first.
    if (more) waiting.resolve(outcome!)
    else rt.compaction.settle.push(() => waiting.resolve(outcome!))
  }
  return more
}

/**
 * The proposals and steps of a conversation turn (docs/step-pipeline.md#the-turn-loop): first `next-turn`, then
 * `next-step`, until an ending holds with nothing steered in. Returns the turn's ending and whether the driver stops;
 * throws on a turn error.
 */
async function steps(
  rt: AgentRuntime,
  turn: number,
  signal: AbortSignal,
): Promise<{ reason: TurnEndReason; stop: boolean }> {
  const phase = running(rt)
  let ending: StepEnding = null
  let stepped = false
  let target: InboxTarget = 'next-turn'
  for (;;) {
    signal.throwIfAborted()
    const step = phase.step + 1
    const { decision, assembly } = await propose(rt, target, turn, step, signal)
    if (decision.kind === 'reject') return { reason: { kind: 'blocked' }, stop: true }
    if (ending !== null && decision.messages.length === 0) break
    if (!stepped && decision.messages.length === 0) return { reason: { kind: 'completed' }, stop: true }
    // S7
    signal.throwIfAborted()
    rt.session.append('step/start', { turn, step })
    phase.step = step
    stepped = true
    let result: StepEnding
    try {
      enterStep(rt, decision.messages)
      result = await runStep(rt, assembly, turn, step, signal)
    } finally {
      rt.session.append('step/end', { turn, step })
    }
    ending = ending === 'max-tokens' ? 'max-tokens' : result
    signal.throwIfAborted()
    if (ending !== null && rt.inbox.nextStep.length === 0) {
      await turnStopping(rt.ctx, rt.agent, turn, signal)
      signal.throwIfAborted()
      if (rt.inbox.nextStep.length === 0) break
    }
    target = 'next-step'
  }
  return { reason: { kind: ending ?? 'completed' } as TurnEndReason, stop: false }
}

/**
 * Appends `turn/end` and says whether the same driver runs another turn: only after a normal ending, and only for
 * pending input or a waiting `agent.compact()`.
 */
function closeTurn(rt: AgentRuntime, turn: number, reason: TurnEndReason, stop: boolean): boolean {
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
