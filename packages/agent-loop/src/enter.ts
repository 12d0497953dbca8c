import type { UserMessage } from '@bridle/llm'
import type { AgentRuntime } from './runtime.js'

/**
 * Station S7 (after `step/start`): each entered message becomes a durable `user/message` surface
 * event, in order. From here on the step's inputs are history, even if the model call fails.
 */
export function enterStep(rt: AgentRuntime, messages: readonly UserMessage[]): void {
  for (const message of messages) rt.session.append('user/message', message, { surfaceOp: 'append' })
}
