// The README example, kept runnable.
import { createAssistantMessage, createUserMessage } from '@bridle/llm'
import { expect, it } from 'vitest'
import { Session, reconstructRequest } from '../src/index.js'

it('README example: append, compact, derive, reconstruct', () => {
  const session = Session.create('demo')

  session.append('turn/start', { turn: 1 })
  session.append('step/start', { turn: 1, step: 1 })
  const prompt = session.append('user/message', createUserMessage('Summarize package.json'), { surfaceOp: 'append' })
  session.append('request/header', {
    header: { config: { provider: 'deepseek', model: 'deepseek-chat' }, system: 'You are terse.' },
    reason: 'initial',
  })
  const chunk = session.append('assistant/chunk', {
    turn: 1,
    step: 1,
    chunk: { type: 'text-delta', index: 0, text: 'It is a pnpm monorepo.' },
  })
  const answer = session.append(
    'assistant/message',
    {
      turn: 1,
      step: 1,
      message: createAssistantMessage({
        content: [{ type: 'text', text: 'It is a pnpm monorepo.' }],
        source: { provider: 'deepseek', model: 'deepseek-chat' },
      }),
    },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
  session.append('step/end', { turn: 1, step: 1 })
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })

  // Compaction: one checkpoint message replaces the prompt and the answer; it must cite both.
  session.append(
    'user/message',
    createUserMessage('Earlier: the user asked about package.json; it is a pnpm monorepo.'),
    {
      surfaceOp: { op: 'replace', start: prompt.seq, end: answer.seq },
      sourceEventSeqs: [prompt.seq, answer.seq],
    },
  )

  const history = session.deriveMessages() // what the next request will carry
  const step1 = reconstructRequest(session.events, { turn: 1, step: 1 }) // what step 1 was sent

  expect(history.map((m) => m.content[0])).toEqual([
    { type: 'text', text: 'Earlier: the user asked about package.json; it is a pnpm monorepo.' },
  ])
  expect(step1.request).toMatchObject({ provider: 'deepseek', model: 'deepseek-chat', system: 'You are terse.' })
  expect(step1.messages).toEqual([prompt.data])
})
