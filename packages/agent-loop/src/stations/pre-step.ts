import { isIdentifiedUserMessage, type UserMessage } from '@bridle/llm'
import { agentWaterfall } from '../vocabulary/agent-events.js'
import type { AgentRuntime } from './runtime.js'
import type { PreStepDecision } from '../vocabulary/types.js'

function assertEnteredMessage(m: unknown, index: number): asserts m is UserMessage {
  if (!isIdentifiedUserMessage(m)) {
    throw new TypeError(
      `agent/pre-step entered an invalid message at index ${index} (expected an identified user-role message)`,
    )
  }
}

/**
 * Station S6: the `agent/pre-step` waterfall decides whether and with what this step enters. The
 * innermost default enters the claimed batch plus the runtime-context candidate; a listener that does
 * not call `next()` replaces that default (and drops the candidate). Throws `TypeError` for a decision
 * of the wrong shape; any listener throw is a turn error.
 */
export async function preStep(
  rt: AgentRuntime,
  claimed: readonly UserMessage[],
  contextMsg: UserMessage | undefined,
  turn: number,
  step: number,
  signal: AbortSignal,
): Promise<PreStepDecision> {
  const messages = Object.freeze([...claimed])
  const fallback = (): PreStepDecision => ({
    kind: 'enter',
    messages: contextMsg ? [...claimed, contextMsg] : [...claimed],
  })
  const decision = await agentWaterfall(rt.ctx, rt.agent, 'agent/pre-step', { messages, turn, step, signal }, fallback)
  if (decision?.kind === 'reject') return decision
  if (decision?.kind !== 'enter' || !Array.isArray(decision.messages)) {
    throw new TypeError('agent/pre-step must resolve to {kind:"enter", messages} or {kind:"reject"}')
  }
  decision.messages.forEach(assertEnteredMessage)
  return decision
}
