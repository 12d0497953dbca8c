import { admittedHooks } from '@bridle/scope'
import { renderPrompt } from '@bridle/system-prompt'
import { agentCarrier, emitAgentEvent } from './agent-events.js'
import { buildRequest } from './build-request.js'
import { consultCompaction, runCompaction } from './compaction.js'
import { failureOf } from './failure.js'
import { running, service, type AgentRuntime, type ManualCompaction } from './runtime.js'
import type { CompactionOutcome } from './types.js'

/**
 * The body of a compaction turn, which serves every `agent.compact()` waiting when it starts (the caller has
 * appended `turn/start`). It claims nothing: it assembles, builds the request the next conversation step would
 * start from (so `request/header` and `request/context` are logged as for any request), asks the policy with
 * `manual: true`, and when the policy plans a compaction, runs it as step 1. Every waiting caller gets the outcome,
 * also when the turn is cancelled or fails; then the error is rethrown for the turn to record.
 */
export async function compactionTurn(rt: AgentRuntime, turn: number, signal: AbortSignal): Promise<void> {
  const waiting = rt.compaction.waiting.splice(0)
  const phase = running(rt)
  let outcome: CompactionOutcome
  try {
    outcome = await compactOnce(rt, turn, signal)
  } catch (error) {
    const failure = signal.aborted ? { message: 'the compaction was cancelled', code: 'ABORTED' } : failureOf(error)
    settle(waiting, { kind: 'failed', turn, step: phase.step, reason: 'manual', failure })
    throw error
  }
  settle(waiting, outcome)
}

async function compactOnce(rt: AgentRuntime, turn: number, signal: AbortSignal): Promise<CompactionOutcome> {
  const skipped = (reason: string): CompactionOutcome => {
    const outcome: CompactionOutcome = { kind: 'skipped', reason }
    emitAgentEvent(rt.ctx, rt.agent, 'agent/compacted', { outcome })
    return outcome
  }
  if (admittedHooks(rt.ctx, 'agent/compaction', agentCarrier(rt.agent)).length === 0) {
    return skipped('no compaction policy is loaded (add @bridle/plugin-compaction)')
  }
  if (rt.session.deriveMessages().length === 0) return skipped('the history is empty')
  const assembly = await service(rt, 'systemPrompt').assemble({ agent: rt.agent, scope: rt.agent, signal })
  signal.throwIfAborted()
  const step = 1
  const messages = rt.session.deriveMessages()
  const system = renderPrompt(assembly)
  const { request, prepared } = await buildRequest(rt, { turn, step, tools: assembly.tools, system, messages, signal })
  rt.compaction.previous = undefined
  const contextWindow = prepared?.context?.contextWindow
  const plan = await consultCompaction(rt, { turn, step, request, contextWindow, manual: true, signal })
  if (plan === undefined) return skipped('the compaction policy found nothing to compact')
  signal.throwIfAborted()
  rt.session.append('step/start', { turn, step })
  running(rt).step = step
  try {
    return await runCompaction(rt, { turn, step, request, plan, reason: 'manual', signal })
  } finally {
    rt.compaction.previous = undefined
    rt.session.append('step/end', { turn, step })
  }
}

function settle(waiting: readonly ManualCompaction[], outcome: CompactionOutcome): void {
  for (const w of waiting) w.resolve(outcome)
}
