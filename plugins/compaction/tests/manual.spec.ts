import { describe, expect, it } from 'vitest'
import type { CompactionOutcome } from '@bridle/agent-loop'
import type { StreamChunk } from '@bridle/llm'
import { cachePrefixReport, verifyDigests } from '@bridle/session'
import { bootApp, captureWarnings, chat, describe as line, say, traceFrom, turn, user } from './harness.js'

const warnings = captureWarnings()

/** An app whose agent had two turns and whose third answer waits until `release()` is called. */
async function heldThirdAnswer() {
  const app = bootApp({ contextWindow: 100_000 })
  const agent = app.agent()
  await chat(app, agent, 2)
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  app.answers.push((r) => ({
    async *[Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
      await held
      yield* say('three')(r) as StreamChunk[]
    },
  }))
  return { app, agent, release }
}

describe('agent.compact()', () => {
  it('when idle: a turn of its own that claims nothing, builds the request, and compacts the closed turns', async () => {
    const app = bootApp({ contextWindow: 100_000 })
    const agent = app.agent()
    await chat(app, agent, 3)
    const outcome = await agent.compact()
    expect(outcome).toMatchObject({
      kind: 'compacted',
      turn: 4,
      step: 1,
      reason: 'manual',
      replacedMessages: 6,
      summary: 'summary of 6 messages',
    })
    expect(traceFrom(agent.session.events, 'turn/start', 12, 3)).toEqual([
      'turn/start 4',
      'step/start 4.1',
      'request/compaction 4.1 manual count=6',
      'request/digest 4.1#1 compaction',
      'chunk block-start',
      'chunk text-delta',
      'chunk block-end',
      'chunk usage',
      'chunk finish',
      'user/message [checkpoint] replace 4..41',
      'step/end 4.1',
      'turn/end 4 completed',
    ])
    expect(agent.session.deriveMessages()).toHaveLength(1)
    expect(agent.status).toBe('idle')
    // the conversation goes on from the checkpoint
    await chat(app, agent, 1, 100, 5)
    expect(app.requests.at(-1)!.messages).toHaveLength(2)
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
    const report = cachePrefixReport(agent.session.events)
    expect(report.at(-1)!.messages).toMatchObject({
      kept: false,
      cause: { kind: 'replace', compaction: { reason: 'manual', replacedMessages: 6 } },
    })
    expect(warnings).toEqual([])
  })

  it('while a turn runs: right after that turn, before pending input', async () => {
    const { app, agent, release } = await heldThirdAnswer()
    agent.followup(user('prompt 3'))
    const compacted = agent.compact()
    agent.followup(user('prompt 4'))
    release()
    const outcome = await compacted
    await agent.whenIdle()
    expect(outcome).toMatchObject({ kind: 'compacted', turn: 4, reason: 'manual', replacedMessages: 6 })
    const turns = agent.session.events
      .filter((e) => e.type === 'turn/start' || e.type === 'request/compaction')
      .map(line)
    expect(turns).toEqual([
      'turn/start 1',
      'turn/start 2',
      'turn/start 3',
      'turn/start 4',
      'request/compaction 4.1 manual count=6',
      'turn/start 5',
    ])
    expect(app.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['user', 'user'])
  })

  it('without a compaction policy: skipped, nothing logged (no turn opens)', async () => {
    const app = bootApp({ contextWindow: 100_000, compaction: false })
    const agent = app.agent()
    await chat(app, agent, 2)
    const seq = agent.session.seq
    const outcomes: CompactionOutcome[] = []
    app.ctx.on('agent/compacted', ({ outcome }) => void outcomes.push(outcome))
    expect(await agent.compact()).toEqual({
      kind: 'skipped',
      reason: 'no compaction policy is loaded (add @bridle/plugin-compaction)',
    })
    await agent.whenIdle()
    expect(agent.session.events.slice(seq).map(line)).toEqual([])
    // the next prompt opens turn 3: no turn number was spent
    await chat(app, agent, 1)
    expect(agent.session.events.slice(seq).map(line)).toContain('turn/start 3')
    expect(outcomes).toEqual([
      { kind: 'skipped', reason: 'no compaction policy is loaded (add @bridle/plugin-compaction)' },
    ])
  })

  it('with an empty history, or only a checkpoint: skipped', async () => {
    const app = bootApp({ contextWindow: 100_000 })
    const agent = app.agent()
    expect(await agent.compact()).toEqual({ kind: 'skipped', reason: 'the history is empty' })
    expect(agent.session.events).toEqual([])
    await chat(app, agent, 1)
    expect((await agent.compact()).kind).toBe('compacted')
    expect(await agent.compact()).toEqual({ kind: 'skipped', reason: 'the compaction policy found nothing to compact' })
  })

  it('several calls while running share one compaction; cancel() resolves waiting calls as skipped', async () => {
    const { app, agent, release } = await heldThirdAnswer()
    agent.followup(user('prompt 3'))
    const a = agent.compact()
    const b = agent.compact()
    release()
    const [x, y] = await Promise.all([a, b])
    expect(x).toBe(y)
    expect(agent.session.events.filter((e) => e.type === 'request/compaction')).toHaveLength(1)
    const held2 = new Promise<void>(() => {})
    app.answers.push(
      () =>
        ({
          async *[Symbol.asyncIterator]() {
            await held2
          },
        }) as never,
    )
    agent.followup(user('prompt 5'))
    const c = agent.compact()
    agent.cancel({ kind: 'user' })
    expect(await c).toEqual({ kind: 'skipped', reason: 'cancelled' })
    await agent.whenIdle()
  })

  it('rejects once the agent is disposed', async () => {
    const app = bootApp({ contextWindow: 100_000 })
    const agent = app.agent()
    await agent.dispose()
    await expect(agent.compact()).rejects.toThrow(`agent "${agent.id}" is disposed`)
  })

  it('a failed manual summary resolves failed, and leaves the history as it was', async () => {
    const app = bootApp({ contextWindow: 100_000 })
    const agent = app.agent()
    await chat(app, agent, 2)
    const history = agent.session.deriveMessages()
    app.summaries.push(() => [
      { type: 'finish', reason: { kind: 'error', failure: { message: 'nope', code: 'SERVER' } } },
    ])
    expect(await agent.compact()).toMatchObject({ kind: 'failed', reason: 'manual', failure: { code: 'SERVER' } })
    expect(agent.session.deriveMessages()).toBe(history)
    expect(warnings).toEqual([
      `agent "${agent.id}": the summary request of turn 3 step 1 failed (SERVER: nope); the history is unchanged`,
    ])
  })
})

describe('turns around a manual compaction', () => {
  it('the next turn after it is an ordinary turn', async () => {
    const app = bootApp({ contextWindow: 100_000 })
    const agent = app.agent()
    await chat(app, agent, 1)
    await agent.compact()
    await turn(agent, 'again')
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 3, reason: { kind: 'completed' } })
  })
})
