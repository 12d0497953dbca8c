import { describe, expect, it } from 'vitest'
import type { CompactionOutcome } from '@bridle/agent-loop'
import type { StreamChunk } from '@bridle/llm'
import { verifyDigests } from '@bridle/session'
import {
  bootApp,
  captureWarnings,
  chat,
  countTokens,
  fail,
  filler,
  say,
  textChunks,
  traceFrom,
  turn,
  user,
} from './harness.js'

const warnings = captureWarnings()
const config = { threshold: 0.8, lowWater: 0.4, summaryMaxTokens: 100 }

/** Boots an app, chats 8 turns (the 9th crosses the threshold), and records the compaction outcomes. */
async function nearlyFull(extra: Record<string, unknown> = {}, contextWindow = 2000) {
  const app = bootApp({ contextWindow, compaction: { ...config, ...extra } })
  const agent = app.agent()
  const outcomes: CompactionOutcome[] = []
  app.ctx.on('agent/compacted', ({ outcome }) => void outcomes.push(outcome))
  await chat(app, agent, 8)
  return { app, agent, outcomes }
}

describe('a summary request that does not give a summary leaves the history untouched and the step proceeds', () => {
  it('fails: the failure is recorded, warned, and the request goes out in the next step', async () => {
    const { app, agent, outcomes } = await nearlyFull()
    const history = agent.session.deriveMessages()
    app.summaries.push(fail('SERVER', 'upstream hiccup'))
    app.answers.push(say('still here'))
    await turn(agent, filler('prompt 9', 400))
    expect(traceFrom(agent.session.events, 'turn/start', 11, 8)).toEqual([
      'turn/start 9',
      'spliced next-turn',
      'step/start 9.1',
      'user/message prompt 9',
      'request/compaction 9.1 threshold count=12',
      'request/digest 9.1#1 compaction',
      'chunk finish',
      'step/end 9.1',
      'step/start 9.2',
      'request/digest 9.2#1',
      'chunk block-start',
    ])
    expect(outcomes).toMatchObject([
      { kind: 'failed', turn: 9, step: 1, failure: { code: 'SERVER', message: 'upstream hiccup' } },
    ])
    // untouched: the same messages (the same objects), plus the new prompt and answer
    expect(agent.session.deriveMessages().slice(0, history.length)).toEqual(history)
    expect(
      agent.session
        .deriveMessages()
        .slice(0, history.length)
        .every((m, i) => m === history[i]),
    ).toBe(true)
    expect(agent.session.events.at(-1)!.data).toMatchObject({ reason: { kind: 'completed' } })
    expect(warnings).toEqual([
      `agent "${agent.id}": the summary request of turn 9 step 1 failed (SERVER: upstream hiccup); the history is unchanged`,
    ])
    // no second try in the same turn; the next turn tries again and succeeds
    app.answers.push(say('ok'))
    await turn(agent, 'prompt 10')
    expect(outcomes.map((o) => o.kind)).toEqual(['failed', 'compacted'])
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
  })

  it('returns nothing (no text): EMPTY_SUMMARY', async () => {
    const { app, agent, outcomes } = await nearlyFull()
    const history = agent.session.deriveMessages()
    app.summaries.push((r) => textChunks('   ', countTokens(r)))
    await turn(agent, filler('prompt 9', 400))
    expect(outcomes).toMatchObject([
      { kind: 'failed', failure: { code: 'EMPTY_SUMMARY', message: 'the summary request returned no text' } },
    ])
    expect(agent.session.deriveMessages().slice(0, history.length)).toEqual(history)
    expect(warnings).toHaveLength(1)
  })

  it('times out (timeoutMs): TIMEOUT, and the turn goes on', async () => {
    const { app, agent, outcomes } = await nearlyFull({ timeoutMs: 50 })
    app.summaries.push((request) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
        await new Promise<void>((resolve) => request.signal!.addEventListener('abort', () => resolve(), { once: true }))
        yield { type: 'finish', reason: { kind: 'aborted', failure: { message: 'aborted', code: 'ABORTED' } } }
      },
    }))
    await turn(agent, filler('prompt 9', 400))
    expect(outcomes).toMatchObject([
      { kind: 'failed', failure: { code: 'TIMEOUT', message: 'the summary request timed out after 50 ms' } },
    ])
    expect(agent.session.events.at(-1)!.data).toMatchObject({ turn: 9, reason: { kind: 'completed' } })
    expect(warnings).toHaveLength(1)
  })

  it('is cancelled with the turn: the turn ends aborted and the history is untouched', async () => {
    const { app, agent, outcomes } = await nearlyFull()
    const history = agent.session.deriveMessages()
    let dispatched!: () => void
    const started = new Promise<void>((resolve) => (dispatched = resolve))
    app.summaries.push((request) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
        dispatched()
        await new Promise<void>((resolve) => request.signal!.addEventListener('abort', () => resolve(), { once: true }))
        throw request.signal!.reason
      },
    }))
    agent.followup(user(filler('prompt 9', 400)))
    await started
    agent.cancel({ kind: 'user' })
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({
      turn: 9,
      reason: { kind: 'aborted', reason: { kind: 'user' } },
    })
    expect(outcomes).toEqual([])
    expect(agent.session.deriveMessages().slice(0, history.length)).toEqual(history)
    expect(agent.session.deriveMessages()).toHaveLength(history.length + 1) // the prompt entered before the summary
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
    expect(warnings).toEqual([])
  })

  it('fails and the request cannot fit the window: the turn fails with CONTEXT_WINDOW_EXCEEDED', async () => {
    const { app, agent } = await nearlyFull()
    app.summaries.push(fail('SERVER'))
    await turn(agent, filler('a huge prompt', 2400))
    const end = agent.session.events.at(-1)!.data as any
    expect(end.reason.kind).toBe('error')
    expect(end.reason.error.code).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(end.reason.error.message).toMatch(
      new RegExp(
        `^the next request of agent "${agent.id}" needs about \\d+ input tokens, more than the 2000-token context window of mock/m1, and compaction cannot make room \\(the summary request failed: boom\\)$`,
      ),
    )
    // the over-long request was never sent
    expect(app.requests.at(-1)!.purpose).toBe('compaction')
    expect(warnings).toHaveLength(1)
  })
})

describe('without a known context window', () => {
  it('does not compact automatically and warns once per agent', async () => {
    const app = bootApp({ compaction: config })
    const agent = app.agent()
    await chat(app, agent, 12)
    expect(app.requests.some((r) => r.purpose === 'compaction')).toBe(false)
    expect(warnings).toEqual([
      `agent "${agent.id}": no context window is known for mock/m1, so automatic compaction is off (set contextWindow in the plugin config or in the route's model catalog)`,
    ])
  })

  it('uses the configured contextWindow when the route advertises none', async () => {
    const app = bootApp({ compaction: { ...config, contextWindow: 2000 } })
    const agent = app.agent()
    await chat(app, agent, 12)
    expect(app.requests.some((r) => r.purpose === 'compaction')).toBe(true)
    expect(warnings).toEqual([])
  })
})
