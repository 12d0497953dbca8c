import type { UserMessage } from '@bridle/llm'
import { running, type AgentRuntime } from './runtime.js'

/**
 * Station S7 and the step's bracket: appends `step/start`, then each entered message as a durable `user/message`
 * surface event, in order (from here on the step's inputs are history, even if the model call fails); runs the rest
 * of the step (`body`); and appends `step/end` whatever happened after `step/start`.
 */
export async function enterStep<T>(
  rt: AgentRuntime,
  turn: number,
  step: number,
  messages: readonly UserMessage[],
  body: () => Promise<T>,
): Promise<T> {
  rt.session.append('step/start', { turn, step })
  running(rt).step = step
  try {
    for (const message of messages) rt.session.append('user/message', message, { surfaceOp: 'append' })
    return await body()
  } finally {
    rt.session.append('step/end', { turn, step })
  }
}
