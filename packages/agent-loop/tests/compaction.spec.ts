/**
 * The compaction point and compaction steps, driven by hand-written `agent/compaction` listeners (the policy plugin
 * is tested in plugins/compaction): event orders, plan validation, the no-two-in-a-row rule, `agent/compacted`,
 * request verification of summary requests, and `agent.compact()` without a policy.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Logger } from 'cordis'
import type { CompactionOutcome, CompactionPayload, CompactionPlan } from '@bridle/agent-loop'
import { createUserMessage, textOf, type GenerateOptions } from '@bridle/llm'
import { verifyDigests } from '@bridle/session'
import { boot, fail, say, user } from './harness.js'

const warnings: string[] = []
let saved: unknown[] = []
beforeEach(() => {
  warnings.length = 0
  saved = Logger.targets.splice(0, Logger.targets.length, {
    levels: { base: 2 },
    record: (r: { name: string; type: string; content: string }) => {
      if (r.type === 'warn') warnings.push(r.content)
    },
  } as never)
})
afterEach(() => {
  Logger.targets.splice(0, Logger.targets.length, ...(saved as never[]))
})

const plan = (count: number, over: Partial<CompactionPlan> = {}): CompactionPlan => ({
  count,
  instruction: createUserMessage('summarize'),
  checkpoint: (summary) => createUserMessage(`checkpoint: ${summary}`),
  ...over,
})

/** A harness whose adapter answers summary requests with `summary`, and a policy that plans once, at turn `at`. */
function setup(policy: (p: CompactionPayload) => CompactionPlan | undefined) {
  const h = boot()
  const payloads: CompactionPayload[] = []
  const outcomes: CompactionOutcome[] = []
  h.ctx.on('agent/compaction', async (payload, next) => {
    payloads.push(payload)
    return (await next()) ?? policy(payload)
  })
  h.ctx.on('agent/compacted', ({ outcome }) => void outcomes.push(outcome))
  return { h, payloads, outcomes }
}

async function turns(h: ReturnType<typeof boot>, agent: ReturnType<ReturnType<typeof boot>['agent']>, n: number) {
  for (let i = 1; i <= n; i++) {
    h.script.push(say(`answer ${i}`))
    agent.followup(user(`prompt ${i}`))
    await agent.whenIdle()
  }
}

describe('the compaction point', () => {
  it('sees the exact request about to be sent, and a plan makes the step a compaction step', async () => {
    const { h, payloads, outcomes } = setup((p) => (p.turn === 3 && p.step === 1 ? plan(4) : undefined))
    const agent = h.agent()
    await turns(h, agent, 2)
    h.script.push(say('the summary'), say('answer 3'))
    const from = h.trace.length
    agent.followup(user('prompt 3'))
    await agent.whenIdle()
    expect(payloads.map((p) => [p.turn, p.step, p.manual, p.previous?.kind])).toEqual([
      [1, 1, false, undefined],
      [2, 1, false, undefined],
      [3, 1, false, undefined],
      [3, 2, false, 'compacted'],
    ])
    // the payload's request is the one that would have gone out: the frozen, loop-built request
    expect(Object.isFrozen(payloads[2]!.request)).toBe(true)
    expect(payloads[2]!.request.messages.map((m) => textOf(m.content))).toEqual([
      'prompt 1',
      'answer 1',
      'prompt 2',
      'answer 2',
      'prompt 3',
    ])
    expect(payloads[2]!.contextWindow).toBeUndefined()
    expect(h.trace.slice(from).filter((t) => t.startsWith('S:'))).toEqual([
      'S:spliced next-turn @0 +[prompt 3]',
      'S:turn/start 3',
      'S:spliced next-turn @0 -1',
      'S:step/start 3.1',
      'S:user/message prompt 3',
      'S:request/compaction',
      'S:request/digest 3.1#1',
      'S:chunk block-start',
      'S:chunk text-delta',
      'S:chunk block-end',
      'S:chunk usage',
      'S:chunk finish',
      'S:user/message checkpoint: the summary',
      'S:step/end 3.1',
      'S:step/start 3.2',
      'S:request/digest 3.2#1',
      'S:chunk block-start',
      'S:chunk text-delta',
      'S:chunk block-end',
      'S:chunk usage',
      'S:chunk finish',
      'S:assistant/message 3.2',
      'S:step/end 3.2',
      'S:turn/end 3 completed',
    ])
    const summary = h.requests[2]! as GenerateOptions
    expect(summary.purpose).toBe('compaction')
    expect(Object.isFrozen(summary)).toBe(true)
    expect(summary.messages.map((m) => textOf(m.content))).toEqual([
      'prompt 1',
      'answer 1',
      'prompt 2',
      'answer 2',
      'summarize',
    ])
    expect(h.requests[3]!.messages.map((m) => textOf(m.content))).toEqual(['checkpoint: the summary', 'prompt 3'])
    expect(outcomes).toMatchObject([
      { kind: 'compacted', turn: 3, step: 1, reason: 'threshold', replacedMessages: 4, summary: 'the summary' },
    ])
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
  })

  it('runs once per step, before its first attempt: a retried attempt is sent without asking the policy again', async () => {
    const { h, payloads } = setup(() => undefined)
    h.ctx.on('agent/request-error', () => ({ kind: 'retry' as const }))
    const agent = h.agent()
    h.script.push(fail('RATE_LIMIT'), fail('RATE_LIMIT'), say('third time lucky'))
    agent.followup(user('prompt 1'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(3)
    expect(payloads.map((p) => [p.turn, p.step, p.request])).toEqual([[1, 1, h.requests[0]]])
    expect(h.trace.filter((t) => t.startsWith('S:request/digest'))).toEqual([
      'S:request/digest 1.1#1',
      'S:request/digest 1.1#2',
      'S:request/digest 1.1#3',
    ])
  })

  it('never runs two compaction steps in a row: a plan right after one is ignored, with a warning', async () => {
    const { h, outcomes } = setup((p) => (p.turn === 2 ? plan(1) : undefined))
    const agent = h.agent()
    await turns(h, agent, 1)
    h.script.push(say('s1'), say('answer 2'))
    agent.followup(user('prompt 2'))
    await agent.whenIdle()
    expect(outcomes).toHaveLength(1)
    expect(warnings).toEqual([
      `agent "${agent.id}": agent/compaction planned a compaction right after one; the request is sent as it is`,
    ])
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'completed' } })
  })

  it.each([
    [{ count: 0 }, "count must be an integer from 1 to 3 (the request's messages), got 0"],
    [{ count: 4 }, "count must be an integer from 1 to 3 (the request's messages), got 4"],
    [{ instruction: { role: 'assistant' } as never }, 'instruction must be an identified user-role message'],
    [{ checkpoint: 'text' as never }, 'checkpoint must be a function of the summary text'],
    [{ timeoutMs: -1 }, 'timeoutMs must be a positive integer'],
    [{ config: { provider: '', model: 'm' } }, 'config must name a provider and a model'],
  ])('a malformed plan %j is a turn error naming the field', async (over, message) => {
    const { h } = setup((p) => (p.turn === 2 ? plan(1, over as Partial<CompactionPlan>) : undefined))
    const agent = h.agent()
    await turns(h, agent, 1)
    agent.followup(user('prompt 2'))
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({
      turn: 2,
      reason: {
        kind: 'error',
        error: { message: `agent/compaction returned an invalid plan: ${message}`, code: 'UNKNOWN' },
      },
    })
  })

  it('a checkpoint that is not a user message is a turn error, and nothing is replaced', async () => {
    const { h } = setup((p) =>
      p.turn === 2 ? plan(1, { checkpoint: () => ({ role: 'assistant' }) as never }) : undefined,
    )
    const agent = h.agent()
    await turns(h, agent, 1)
    h.script.push(say('s'))
    agent.followup(user('prompt 2'))
    await agent.whenIdle()
    expect((agent.session.events.at(-1)!.data as any).reason.error.message).toBe(
      'agent/compaction plan.checkpoint() must return an identified user-role message',
    )
    expect(agent.session.surface.replaceGeneration).toBe(0)
  })

  it('request verification covers the summary request: a policy that changes the history meanwhile fails the turn', async () => {
    const h = boot()
    h.ctx.on('agent/compaction', async (payload, next) => {
      if (payload.turn !== 2) return next()
      payload.agent.session.append('user/message', user('sneaked in'), { surfaceOp: 'append' })
      return plan(1)
    })
    const agent = h.agent()
    await turns(h, agent, 1)
    agent.followup(user('prompt 2'))
    await agent.whenIdle()
    const reason = (agent.session.events.at(-1)!.data as any).reason
    expect(reason.kind).toBe('error')
    expect(reason.error.message).toMatch(
      /does not match the session surface|diverges from the dispatch-time durable derivation/,
    )
  })
})

describe('agent.compact() without a policy', () => {
  it('resolves skipped with the reason and emits agent/compacted', async () => {
    const h = boot()
    const outcomes: CompactionOutcome[] = []
    h.ctx.on('agent/compacted', ({ outcome }) => void outcomes.push(outcome))
    const agent = h.agent()
    await turns(h, agent, 1)
    const outcome = await agent.compact()
    expect(outcome).toEqual({
      kind: 'skipped',
      reason: 'no compaction policy is loaded (add @bridle/plugin-compaction)',
    })
    expect(outcomes).toEqual([outcome])
    expect(agent.status).toBe('idle')
  })
})
