import { admittedHooks } from '@bridle/scope'
import { renderPromptSpans } from '@bridle/system-prompt'
import { agentCarrier, emitAgentEvent } from '../vocabulary/agent-events.js'
import { buildRequest } from '../stations/build-request.js'
import { consultCompaction, runCompaction } from '../stations/compaction.js'
import { failureOf } from '../vocabulary/failure.js'
import { running, service, type AgentRuntime } from '../stations/runtime.js'
import type { CompactionOutcome } from '../vocabulary/types.js'

/**
 * Why an `agent.compact()` cannot make a compaction before any turn opens (no policy is loaded, or the history is
 * empty), else `undefined`. The driver then answers the waiting calls `skipped` without writing a turn: a turn that
 * could only say "nothing compacted" would be a phantom in the log.
 */
export function nothingToCompact(rt: AgentRuntime): string | undefined {
  if (admittedHooks(rt.ctx, 'agent/compaction', agentCarrier(rt.agent)).length === 0)
    return 'no compaction policy is loaded (add @bridle/plugin-compaction)'
  if (rt.session.deriveMessages().length === 0) return 'the history is empty'
  return undefined
}

/**
 * The body of a compaction turn, which serves the `agent.compact()` calls waiting when it started (the caller has
 * appended `turn/start` and resolves them once `turn/end` is written). It claims nothing: it assembles, builds the
 * request the next conversation step would start from (so `request/header` and `request/context` are logged as for
 * any request), asks the policy with `manual: true`, and when the policy plans a compaction, runs it as step 1.
 * Throws when the turn is cancelled or fails; {@link abortedCompaction} is then the waiting calls' outcome.
 */
export async function compactionTurn(rt: AgentRuntime, turn: number, signal: AbortSignal): Promise<CompactionOutcome> {
  const skipped = (reason: string): CompactionOutcome => {
    const outcome: CompactionOutcome = { kind: 'skipped', reason }
    emitAgentEvent(rt.ctx, rt.agent, 'agent/compacted', { outcome })
    return outcome
  }
  const nothing = nothingToCompact(rt)
  if (nothing !== undefined) return skipped(nothing)
  const assembly = await service(rt, 'systemPrompt').assemble({ agent: rt.agent, scope: rt.agent, signal })
  signal.throwIfAborted()
  const step = 1
  const messages = rt.session.deriveMessages()
  const { text: system, spans: sections } = renderPromptSpans(assembly)
  const { request, prepared } = await buildRequest(rt, {
    turn,
    step,
    tools: assembly.tools,
    system,
    sections,
    messages,
    signal,
  })
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

/** The outcome of a compaction turn that threw: cancelled (`ABORTED`) or the turn's error. */
export function abortedCompaction(
  rt: AgentRuntime,
  turn: number,
  signal: AbortSignal,
  error: unknown,
): CompactionOutcome {
  const failure = signal.aborted ? { message: 'the compaction was cancelled', code: 'ABORTED' } : failureOf(error)
  return { kind: 'failed', turn, step: running(rt).step, reason: 'manual', failure }
}
