/**
 * The long run of issue 20: hundreds of turns with tool calls against the loopback OpenAI-compatible server, which
 * counts prompt tokens with a real tokenizer and reports them (and its prefix-cache hits) as usage. The agent runs
 * with `@bridle/plugin-compaction` and JSONL persistence. Checked: every request the server received stays under the
 * threshold; compactions happen exactly where the projection crossed it, in large steps; every request, the summary
 * requests included, verifies from the stored file (also through `bridle inspect --verify`); the cache prefix holds
 * on every conversation request but the first after each compaction; and a resumed agent continues from the
 * checkpoint. The projection's error against the reported usage is measured and bounded here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentLoop, type Agent, type CompactionOutcome } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime, textOf, type Message } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { Compaction, DEFAULT_INSTRUCTIONS, type ProjectionRecord } from '@bridle/plugin-compaction'
import { cachePrefixReport, SessionStore, verifyDigests, type SessionEvent } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { startLoopbackModel, words, type LoopbackModel } from './compaction-support.js'

const WINDOW = 8192
const THRESHOLD = 0.75
const LOW_WATER = 0.35
const TURNS = 200
const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))

interface Point {
  readonly turn: number
  readonly step: number
  readonly planned: boolean
  readonly projection: ProjectionRecord
}

interface App {
  ctx: Context
  policy: () => Compaction
  points: Point[]
  outcomes: CompactionOutcome[]
}

function boot(model: LoopbackModel, root: string): App {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, { persona: 'You help with numbered research tasks. Use lookup for facts.' })
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop, {})
  ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  ctx.plugin(llmOpenai, {
    provider: 'loop',
    baseURL: model.server.url,
    apiKeyEnv: null,
    maxRetries: 0,
    models: [{ id: 'loop-model', contextWindow: WINDOW, defaultMaxTokens: 1024 }],
  })
  ctx.tools.register({
    name: 'lookup',
    description: 'Looks up notes on a topic.',
    parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    concurrencySafe: true,
    execute: (args: { topic: string }) => words(`Notes on ${args.topic}:`, 900, args.topic.length),
  })
  const app: App = { ctx, policy: () => plugin!, points: [], outcomes: [] }
  // Registered before the plugin, so it wraps it: it sees each decision and the projection it was made on.
  ctx.on('agent/compaction', async (payload, next) => {
    const plan = await next()
    app.points.push({
      turn: payload.turn,
      step: payload.step,
      planned: plan !== undefined,
      projection: plugin!.policy.lastProjection(payload.agent)!,
    })
    return plan
  })
  ctx.on('agent/compacted', ({ outcome }) => void app.outcomes.push(outcome))
  let plugin: Compaction | undefined
  class Captured extends Compaction {
    constructor(c: Context, config?: unknown) {
      super(c, config)
      plugin = this
    }
  }
  ctx.plugin(Captured, { threshold: THRESHOLD, lowWater: LOW_WATER, summaryMaxTokens: 512 })
  return app
}

async function runTasks(agent: Agent, from: number, to: number): Promise<void> {
  for (let n = from; n <= to; n++) {
    agent.followup(createUserMessage(`task ${n}: ${words('please look into', 260 + (n % 7) * 40, n)}`))
    await agent.whenIdle()
    const end = agent.session.events.at(-1) as SessionEvent
    if (end.type !== 'turn/end' || (end.data as { reason: { kind: string } }).reason.kind !== 'completed') {
      throw new Error(`task ${n} did not complete: ${JSON.stringify(end)}`)
    }
  }
}

let model: LoopbackModel
let root: string
let app: App
let agent: Agent
let events: readonly SessionEvent[]

beforeAll(async () => {
  model = await startLoopbackModel({ instructions: DEFAULT_INSTRUCTIONS, summaryChars: 1400, answerChars: 320 })
  root = mkdtempSync(join(tmpdir(), 'bridle-compaction-run-'))
  app = boot(model, root)
  await new Promise((r) => setTimeout(r, 0))
  agent = app.ctx.agentLoop.create({ provider: 'loop', model: 'loop-model', sessionId: 'long-run' })
  await runTasks(agent, 1, TURNS)
  events = agent.session.events
  await app.ctx.sessions.flush(agent.session)
}, 120_000)

afterAll(async () => {
  await agent?.dispose()
  await app?.ctx.scope.dispose()
  await model?.close()
  rmSync(root, { recursive: true, force: true })
})

describe(`a ${TURNS}-turn run with tool calls against the loopback server`, () => {
  it('keeps every request the server received under the threshold (summary requests under the window)', () => {
    const conversation = model.served.filter((s) => s.kind === 'conversation')
    const summaries = model.served.filter((s) => s.kind === 'summary')
    expect(conversation.length).toBeGreaterThan(TURNS * 2)
    expect(summaries.length).toBeGreaterThan(10)
    expect(Math.max(...conversation.map((s) => s.promptTokens))).toBeLessThanOrEqual(THRESHOLD * WINDOW)
    expect(Math.max(...summaries.map((s) => s.promptTokens))).toBeLessThanOrEqual(WINDOW)
    expect(app.outcomes.every((o) => o.kind === 'compacted')).toBe(true)
  })

  it('compacts exactly where the projection crossed the threshold, and each time down near the low-water mark', () => {
    const planned = app.points.filter((p) => p.planned)
    expect(planned.length).toBe(app.outcomes.length)
    for (const p of app.points) expect(p.planned).toBe(p.projection.tokens > THRESHOLD * WINDOW)
    // after each compaction, the next request the server saw is at or below the low-water mark (plus the step's
    // own new messages); between compactions the history grew by at least a third of the window
    const served = model.served
    const after = served.filter((_, i) => i > 0 && served[i - 1]!.kind === 'summary')
    for (const s of after) expect(s.promptTokens).toBeLessThanOrEqual(LOW_WATER * WINDOW + 600)
    const turns = planned.map((p) => p.turn)
    for (let i = 1; i < turns.length; i++) expect(turns[i]! - turns[i - 1]!).toBeGreaterThanOrEqual(3)
  })

  it('projects each request within a few percent of the tokens the server then reported', () => {
    // The projection is the previous request's reported input plus an estimate (characters × a ratio calibrated on
    // that report) for what was appended since. Measured against the server's own count of the request it received:
    const sent = app.points.filter((p) => !p.planned)
    const conversation = model.served.filter((s) => s.kind === 'conversation')
    expect(sent.length).toBe(conversation.length)
    const errors = sent.map(
      (p, i) => (p.projection.tokens - conversation[i]!.promptTokens) / conversation[i]!.promptTokens,
    )
    const based = sent.filter((p) => p.projection.base !== undefined).length
    const mean = errors.reduce((a, e) => a + Math.abs(e), 0) / errors.length
    const worst = Math.max(...errors.map(Math.abs))
    console.log(
      `projection error over ${errors.length} requests (${based} built on a reported count): ` +
        `mean ${(mean * 100).toFixed(2)}%, worst ${(worst * 100).toFixed(2)}%`,
    )
    expect(based).toBeGreaterThan(errors.length * 0.8)
    expect(mean).toBeLessThan(0.03)
    expect(worst).toBeLessThan(0.12)
  })

  it('verifies every request from the stored file, the summary requests included', async () => {
    const stored = await app.ctx.sessionPersistence!.inspect('long-run')
    const verified = verifyDigests(stored.events)
    expect(verified.length).toBe(model.served.length)
    expect(verified.filter((v) => v.purpose === 'compaction').length).toBe(app.outcomes.length)
    expect(verified.filter((v) => !v.ok)).toEqual([])
  })

  it('`bridle inspect --verify` passes on the stored session', () => {
    writeFileSync(
      join(root, 'bridle.yaml'),
      'plugins:\n  - package: "@bridle/session-jsonl"\n    config:\n      root: .\n',
    )
    const out = spawnSync(process.execPath, [BIN, 'inspect', 'long-run', '--verify'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(out.stderr).toBe('')
    expect(out.status).toBe(0)
    expect(out.stdout).toContain(`verification passed: ${model.served.length} requests match their digests`)
  })

  it('keeps the cache prefix on every conversation request but the first after each compaction', () => {
    const report = cachePrefixReport(events)
    const conversation = report.filter((r) => r.purpose === undefined && r.previousSeq !== undefined)
    const held = conversation.filter((r) => r.system?.kept && r.tools?.kept && r.messages?.kept)
    const broken = conversation.filter((r) => !held.includes(r))
    expect(broken.length).toBe(app.outcomes.length)
    for (const row of broken)
      expect(row.messages).toMatchObject({
        kept: false,
        cause: { kind: 'replace', compaction: { reason: 'threshold' } },
      })
    // and the provider reported cache hits for every held request
    for (const row of held) expect(row.cachedInputTokens).toBeGreaterThan(0)
  })

  it('resumes after a compaction and continues from its checkpoint', async () => {
    const lastCompaction = events.findLast((e) => e.type === 'request/compaction')!
    const checkpoint = events.findLast((e) => e.type === 'user/message' && typeof e.surfaceOp === 'object')!
    expect(checkpoint.seq).toBeGreaterThan(lastCompaction.seq)
    const before = agent.session.deriveMessages().map((m) => textOf(m.content))
    await agent.dispose()
    const resumed = await app.ctx.agentLoop.resume('long-run', { provider: 'loop', model: 'loop-model' })
    expect(resumed.session.deriveMessages().map((m) => textOf(m.content))).toEqual(before)
    const served = model.served.length
    const compactions = app.outcomes.length
    await runTasks(resumed, TURNS + 1, TURNS + 20)
    // the first request after the resume carries the checkpoint and the kept turns verbatim
    const firstBody = model.server.requests[served]!.body as { messages: { role: string; content: string }[] }
    expect(firstBody.messages[1]!.content).toBe(
      textOf((resumed.session.events[checkpoint.seq]!.data as Message).content),
    )
    expect(app.outcomes.length).toBeGreaterThan(compactions)
    expect(
      Math.max(
        ...model.served
          .slice(served)
          .filter((s) => s.kind === 'conversation')
          .map((s) => s.promptTokens),
      ),
    ).toBeLessThanOrEqual(THRESHOLD * WINDOW)
    expect(verifyDigests(resumed.session.events).filter((v) => !v.ok)).toEqual([])
    agent = resumed
  })
})
