import { errorChain, LlmError, type LlmFailure } from '@bridle/llm'
import type { InboxTarget } from '@bridle/inbox'
import type { TurnEndReason } from '@bridle/session'
import { emitAgentEvent, turnStopping } from './agent-events.js'
import { enterStep } from './enter.js'
import { propose } from './proposal.js'
import { running, type AgentRuntime } from './runtime.js'
import { runStep } from './step.js'
import type { StepEnding } from './types.js'

/** The failure a turn error records: an `LlmError`'s facts unchanged, else the error chain as `UNKNOWN`. */
export function failureOf(error: unknown): LlmFailure {
  if (error instanceof LlmError) return error.failure
  return { message: errorChain(error), code: 'UNKNOWN' }
}

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
    return false
  }
  phase.turn = turn

  let reason: TurnEndReason | undefined
  let stop = false
  try {
    let ending: StepEnding = null
    let stepped = false
    let target: InboxTarget = 'next-turn'
    for (;;) {
      signal.throwIfAborted()
      const step = phase.step + 1
      const { decision, assembly } = await propose(rt, target, turn, step, signal)
      if (decision.kind === 'reject') {
        reason = { kind: 'blocked' }
        stop = true
        break
      }
      if (ending !== null && decision.messages.length === 0) break
      if (!stepped && decision.messages.length === 0) {
        reason = { kind: 'completed' }
        stop = true
        break
      }
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
    reason ??= { kind: ending ?? 'completed' } as TurnEndReason
  } catch (error) {
    stop = true
    if (signal.aborted) {
      reason = { kind: 'aborted', reason: signal.reason }
    } else {
      reason = { kind: 'error', error: failureOf(error) }
      emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn, step: phase.step, error })
    }
  }

  try {
    rt.session.append('turn/end', { turn, reason })
  } catch (error) {
    emitAgentEvent(rt.ctx, rt.agent, 'agent/error', { turn, step: phase.step, error })
    return false
  }
  if (stop || !rt.inbox.hasPending) return false
  phase.abort = new AbortController()
  phase.wakeRequested = false
  phase.step = 0
  return true
}
