import { Context } from 'cordis'
import { createAssistantMessage, createUserMessage } from '@bridle/llm'
import { reconstructRequest, requestDigestParts, SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'

/**
 * Writes a session of `turns` turns (a prompt and an answer each, every request digested) into the session folder
 * `root`, as the agent loop would log it: a timeline far longer than a page shows at once.
 */
export async function writeLongSession(root: string, id: string, turns: number): Promise<void> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionJsonl, { root })
  await new Promise((resolve) => setTimeout(resolve, 0))
  const session = ctx.sessions.create(id)
  session.append('request/header', {
    header: { config: { provider: 'scripted', model: 'long' }, system: 'You count.' },
    reason: 'initial',
  })
  for (let turn = 1; turn <= turns; turn++) {
    session.append('turn/start', { turn })
    session.append('step/start', { turn, step: 1 })
    session.append('user/message', createUserMessage(`Count to ${turn}.`), { surfaceOp: 'append' })
    const parts = requestDigestParts(reconstructRequest(session.events, { turn, step: 1 }).request)
    session.append('request/digest', { turn, step: 1, attempt: 1, algorithm: 'sha256', ...parts })
    const text = `Counted to ${turn}.`
    const chunk = session.append('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text } })
    session.append(
      'assistant/message',
      {
        turn,
        step: 1,
        message: createAssistantMessage({
          content: [{ type: 'text', text }],
          source: { provider: 'scripted', model: 'long' },
        }),
      },
      { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
    )
    session.append('step/end', { turn, step: 1 })
    session.append('turn/end', { turn, reason: { kind: 'completed' } })
  }
  await ctx.sessions.flush(session)
  await ctx.scope.dispose()
}
