import { describe, expect, it } from 'vitest'
import { textOf, type Message } from '@bridle/llm'
import { cachePrefixReport, reconstructRequest, verifyDigests } from '@bridle/session'
import { DEFAULT_INSTRUCTIONS } from '../src/index.js'
import { bootApp, callTool, captureWarnings, chat, countTokens, filler, say, traceFrom, turn, user } from './harness.js'

const warnings = captureWarnings()
const config = { threshold: 0.8, lowWater: 0.4, summaryMaxTokens: 100 }
const text = (m: Message) => textOf(m.content)

describe('an automatic compaction', () => {
  it('is one compaction step before the step that would cross the threshold; the request follows in the next step', async () => {
    const app = bootApp({ contextWindow: 2000, compaction: config })
    const agent = app.agent()
    await chat(app, agent, 9)
    // 8 turns of ~206 tokens each fit under 1600; the 9th prompt would not.
    expect(traceFrom(agent.session.events, 'turn/start', 20, 8)).toEqual([
      'turn/start 9',
      'spliced next-turn',
      'step/start 9.1',
      'user/message prompt 9',
      'request/compaction 9.1 threshold count=12',
      'request/digest 9.1#1 compaction',
      'chunk block-start',
      'chunk text-delta',
      'chunk block-end',
      'chunk usage',
      'chunk finish',
      'user/message [checkpoint] replace 4..83',
      'step/end 9.1',
      'step/start 9.2',
      'request/digest 9.2#1',
      'chunk block-start',
      'chunk text-delta',
      'chunk block-end',
      'chunk usage',
      'chunk finish',
    ])
    expect(warnings).toEqual([])
  })

  it('sends the conversation system, tools and first messages plus the instruction, and replaces exactly them', async () => {
    const app = bootApp({ contextWindow: 2000, compaction: config })
    app.ctx.tools.register({
      name: 'noop',
      description: 'does nothing',
      parameters: { type: 'object', properties: {} },
      execute: () => 'ok',
    })
    const agent = app.agent()
    await chat(app, agent, 9)
    const index = app.requests.findIndex((r) => r.purpose === 'compaction')
    const [before, summary, after] = app.requests.slice(index - 1, index + 2) as [any, any, any]
    expect(summary.system).toBe(before.system)
    expect(summary.tools).toBe(before.tools)
    expect(summary.maxTokens).toBe(100)
    expect(summary.messages.slice(0, -1)).toEqual(before.messages.slice(0, summary.messages.length - 1))
    const instruction = summary.messages.at(-1)
    expect(text(instruction)).toBe(DEFAULT_INSTRUCTIONS)
    expect(instruction.source).toEqual({ kind: 'plugin', plugin: '@bridle/plugin-compaction', form: 'instructions' })
    const count = summary.messages.length - 1
    // After: the checkpoint, then the messages that were not summarized, verbatim (the same objects).
    const checkpoint = after.messages[0]
    expect(text(checkpoint)).toBe(
      `Summary of the earlier conversation (it replaces ${count} earlier messages; the messages after it are verbatim):\n\nsummary of ${count} messages`,
    )
    expect(checkpoint.source).toEqual({ kind: 'plugin', plugin: '@bridle/plugin-compaction', form: 'recall' })
    const tail = agent.session.deriveMessages().slice(1, after.messages.length)
    expect(after.messages.slice(1)).toEqual(tail)
    const history = [...before.messages, /* its answer */ null]
    expect(after.messages[1]).toBe(before.messages[count])
    expect(history.length).toBeGreaterThan(count)
    // The checkpoint cites every node it shadows, then the request/compaction record and the summary chunks.
    const event = agent.session.events.find((e) => e.data === checkpoint)!
    const record = agent.session.events.find((e) => e.type === 'request/compaction')!
    const chunks = agent.session.events.filter(
      (e) =>
        e.type === 'assistant/chunk' &&
        (e.data as any).turn === (record.data as any).turn &&
        (e.data as any).step === (record.data as any).step,
    )
    const shadowed = event.sourceEventSeqs!.slice(0, -1 - chunks.length)
    expect(event.sourceEventSeqs!.slice(shadowed.length)).toEqual([record.seq, ...chunks.map((c) => c.seq)])
    expect(shadowed.length).toBe(count)
    expect(event.surfaceOp).toEqual({ op: 'replace', start: shadowed[0], end: shadowed.at(-1) })
    // The log rebuilds the summary request exactly, and verifies every request.
    const rebuilt = reconstructRequest(agent.session.events, {
      turn: (record.data as any).turn,
      step: (record.data as any).step,
    })
    expect(rebuilt.purpose).toBe('compaction')
    const { signal: _s, sessionId: _i, purpose: _p, ...sent } = summary
    expect(JSON.parse(JSON.stringify(rebuilt.request))).toEqual(JSON.parse(JSON.stringify(sent)))
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
  })

  it('names each compaction as the cause of its cache break, with tokens saved, and shows the summary reusing the prefix', async () => {
    const app = bootApp({ contextWindow: 2000, compaction: config })
    const agent = app.agent()
    await chat(app, agent, 30)
    const report = cachePrefixReport(agent.session.events)
    const summaries = report.filter((r) => r.purpose === 'compaction')
    expect(summaries.length).toBeGreaterThanOrEqual(3)
    const conversation = report.filter((r) => r.purpose === undefined)
    const broken = conversation.filter(
      (r) => r.messages?.kept === false || r.system?.kept === false || r.tools?.kept === false,
    )
    // Only the first request after each compaction breaks, and the report names that compaction.
    expect(broken.length).toBe(summaries.length)
    for (const [i, row] of broken.entries()) {
      const summary = summaries[i]!
      expect(row.system).toEqual({ kept: true })
      expect(row.tools?.kept).toBe(true)
      expect(row.messages).toMatchObject({ kept: false, firstDifferingPosition: 0, cause: { kind: 'replace' } })
      const cause = (row.messages as any).cause
      expect(cause.compaction).toMatchObject({ turn: summary.turn, step: summary.step, reason: 'threshold' })
      expect(cause.compaction.tokensSaved).toBe(cause.compaction.inputTokensBefore - cause.compaction.inputTokensAfter)
      expect(cause.compaction.tokensSaved).toBeGreaterThan(500)
      expect(cause.compaction.inputTokensAfter).toBe(row.inputTokens)
      // The summary request is compared with the conversation request before it: the same system, tools and
      // first messages (its whole prefix but the instruction).
      expect(summary.previousSeq).toBe(report[report.indexOf(summary) - 1]!.seq)
      expect(summary.messages).toMatchObject({ kept: false, cause: { kind: 'compaction-request' } })
      expect(summary.prefixKept!.messages).toBe(cause.compaction.replacedMessages)
    }
    expect(warnings).toEqual([])
  })
})

describe('what stays verbatim', () => {
  it('never separates a tool call from its result, also when it has to cut inside a long tool turn', async () => {
    const app = bootApp({ contextWindow: 3000, compaction: { ...config, lowWater: 0.3 } })
    app.ctx.tools.register({
      name: 'read',
      description: 'reads',
      parameters: { type: 'object', properties: {} },
      execute: () => filler('file contents', 600),
    })
    const agent = app.agent()
    await chat(app, agent, 2)
    // One turn with many tool rounds: the history grows inside the turn until it must be compacted mid-turn.
    for (let i = 0; i < 14; i++) app.answers.push(callTool(`c${i}`, 'read'))
    app.answers.push(say('done'))
    await turn(agent, 'read everything')
    const compactions = agent.session.events.filter((e) => e.type === 'request/compaction')
    expect(compactions.length).toBeGreaterThan(0)
    // At least one compaction had to summarize part of the open turn itself (its prompt and first rounds).
    const inside = app.requests.filter(
      (r) => r.purpose === 'compaction' && r.messages.some((m) => textOf(m.content) === 'read everything'),
    )
    expect(inside.length).toBeGreaterThan(0)
    for (const request of app.requests) {
      if (request.purpose !== 'compaction') expect(countTokens(request)).toBeLessThanOrEqual(2400)
      const calls = new Set<string>()
      const results = new Set<string>()
      for (const m of request.messages) {
        for (const b of m.content) {
          if (b.type === 'tool-call') calls.add(b.id)
          if (b.type === 'tool-result') results.add(b.toolCallId)
        }
      }
      // Every result has its call in the same request, and every call (but a trailing one) its result.
      for (const id of results) expect(calls.has(id)).toBe(true)
      for (const id of calls) if (request.purpose === undefined) expect(results.has(id)).toBe(true)
    }
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
    expect(warnings).toEqual([])
  })

  it('shows the runtime context again in the step after a compaction that replaced its snapshot', async () => {
    const app = bootApp({ contextWindow: 2000, compaction: config })
    app.ctx.systemPrompt.context({ name: 'mode', order: 0, text: 'mode: read-only' })
    const agent = app.agent()
    await chat(app, agent, 9)
    const index = app.requests.findIndex((r) => r.purpose === 'compaction')
    const after = app.requests[index + 1]!
    const snapshots = after.messages.filter((m) => m.source.kind === 'plugin' && (m.source as any).form === 'snapshot')
    expect(snapshots.length).toBe(1)
    expect(text(snapshots[0]!)).toContain('mode: read-only')
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
  })

  it('summarizes on the configured route, recorded in request/compaction and verified', async () => {
    const app = bootApp({
      contextWindow: 2000,
      compaction: { ...config, summary: { provider: 'mock', model: 'small', maxTokens: 50 } },
    })
    const agent = app.agent()
    await chat(app, agent, 9)
    const summary = app.requests.find((r) => r.purpose === 'compaction')!
    expect([summary.provider, summary.model, summary.maxTokens]).toEqual(['mock', 'small', 50])
    const record = agent.session.events.find((e) => e.type === 'request/compaction')!
    expect((record.data as any).config).toEqual({ provider: 'mock', model: 'small', maxTokens: 50 })
    // The conversation route is untouched: the next request goes out on m1 and logs no header change.
    const next = app.requests[app.requests.indexOf(summary) + 1]!
    expect(next.model).toBe('m1')
    expect(agent.session.events.filter((e) => e.type === 'request/header').length).toBe(1)
    expect(verifyDigests(agent.session.events).every((v) => v.ok)).toBe(true)
  })
})

describe('the projection', () => {
  it('is the reported input of the previous request plus an estimate of what was appended since', async () => {
    const app = bootApp({ contextWindow: 100_000, compaction: config })
    const agent = app.agent()
    await chat(app, agent, 3)
    app.answers.push(say('x'))
    agent.followup(user(filler('next', 400)))
    await agent.whenIdle()
    const record = app.plugin!.policy.lastProjection(agent)!
    const last = app.requests.at(-1)!
    const previous = app.requests.at(-2)!
    expect(record.base).toEqual({ reported: countTokens(previous), messages: previous.messages.length })
    expect(record.tokens).toBe(record.base!.reported + record.estimated)
    // the estimate covers the previous answer and the new prompt; the stand-in tokenizer counts them alike
    expect(Math.abs(record.tokens - countTokens(last)) / countTokens(last)).toBeLessThan(0.05)
  })
})
