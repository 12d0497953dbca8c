/**
 * The key property of the package (docs/tracing.md): for random scripted sessions — answers, tool calls (some
 * failing), model failures, retries, cancelled turns, blocked turns, manual compactions and resumes in a new
 * process — the spans the plugin made live equal the spans `traceSessionLog` makes from the stored log, apart from
 * their ids: the same names, kinds, parents, times, attributes and statuses, in the same order. And every `chat` span's
 * cache facts are its request's row of the session's `cachePrefixReport`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import { Compaction } from '@bridle/plugin-compaction'
import { SessionJsonl } from '@bridle/session-jsonl'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { cachePrefixReport } from '@bridle/session'
import { cacheAttributes } from '../src/cache-attributes.js'
import type { Attributes } from '../src/records.js'
import { OtelTracing, traceSessionLog } from '../src/index.js'
import { boot, callTools, fail, plain, recorder, say, tick, user, type Recorder } from './support.js'

type Plan =
  | { kind: 'answer'; cached: number | undefined }
  | { kind: 'tools'; calls: boolean[] }
  | { kind: 'fail' }
  | { kind: 'retry'; failures: number }
  | { kind: 'abort' }
  | { kind: 'blocked' }
  | { kind: 'compact' }
  | { kind: 'resume' }

const planArb: fc.Arbitrary<Plan> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('answer' as const), cached: fc.option(fc.nat(500), { nil: undefined }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
    }),
  },
  fc.constant({ kind: 'fail' as const }),
  fc.record({ kind: fc.constant('retry' as const), failures: fc.integer({ min: 1, max: 2 }) }),
  fc.constant({ kind: 'abort' as const }),
  fc.constant({ kind: 'blocked' as const }),
  fc.constant({ kind: 'compact' as const }),
  fc.constant({ kind: 'resume' as const }),
)

/** Streams one text chunk, then waits until the request is cancelled and throws its reason (as an adapter does). */
const hangUntilCancelled =
  (onDispatched: () => void) =>
  (request: GenerateOptions): AsyncIterable<StreamChunk> => ({
    async *[Symbol.asyncIterator]() {
      yield { type: 'block-start', index: 0, blockType: 'text' }
      onDispatched()
      const signal = request.signal!
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))
      throw signal.reason
    },
  })

const roots: string[] = []
afterAll(async () => {
  for (const dir of roots.splice(0)) await rm(dir, { recursive: true, force: true })
})

let runs = 0

/** Runs the plans as turns of one session, in one or more processes; returns the live spans and the stored log. */
async function runSession(plans: readonly Plan[], content: boolean) {
  const root = await mkdtemp(join(tmpdir(), 'bridle-otel-prop-'))
  roots.push(root)
  const id = `prop-${++runs}`
  const live: Recorder[] = []
  const control = { retries: 0, block: false }

  const start = async () => {
    const h = boot()
    h.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    h.ctx.plugin(Compaction, { contextWindow: 1_000_000 })
    h.ctx.tools.register({
      name: 'ok_tool',
      description: 'works',
      parameters: { type: 'object' },
      execute: () => 'fine',
    })
    h.ctx.tools.register({
      name: 'bad_tool',
      description: 'fails',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('tool broke')
      },
    })
    h.ctx.on('agent/request-error', () => (control.retries-- > 0 ? { kind: 'retry' as const } : undefined))
    h.ctx.on('agent/pre-step', (_payload, next) => (control.block ? { kind: 'reject' as const } : next()))
    const rec = recorder()
    live.push(rec)
    h.ctx.plugin(OtelTracing, { tracerProvider: rec.provider, captureContent: content, secrets: ['secret-value-123'] })
    await tick()
    return h
  }

  let h = await start()
  let agent = h.agent({ sessionId: id })
  let n = 0
  const ask = async () => {
    agent.followup(user(`question ${++n} with secret-value-123`))
    await agent.whenIdle()
  }
  for (const plan of plans) {
    switch (plan.kind) {
      case 'answer':
        h.script.push(say(`answer ${n}`, plan.cached))
        await ask()
        break
      case 'tools':
        h.script.push(
          callTools(...plan.calls.map((ok, i) => ({ id: `c${n}-${i}`, name: ok ? 'ok_tool' : 'bad_tool' }))),
          say('after tools'),
        )
        await ask()
        break
      case 'fail':
        h.script.push(fail('SERVER', 'upstream broke', { status: 500 }))
        await ask()
        break
      case 'retry':
        control.retries = plan.failures
        for (let i = 0; i < plan.failures; i++) h.script.push(fail('RATE_LIMIT', 'slow down', { status: 429 }))
        h.script.push(say('finally'))
        await ask()
        control.retries = 0
        break
      case 'abort': {
        let dispatched!: () => void
        const out = new Promise<void>((resolve) => (dispatched = resolve))
        h.script.push(hangUntilCancelled(dispatched))
        agent.followup(user(`question ${++n}`))
        await out
        agent.cancel({ kind: 'user' })
        await agent.whenIdle()
        break
      }
      case 'blocked':
        control.block = true
        await ask()
        control.block = false
        break
      case 'compact':
        h.script.push(say('summary of the conversation'))
        await agent.compact()
        h.script.length = 0
        break
      case 'resume':
        // a session with nothing in its log has no file to resume from
        if (agent.session.seq === 0) break
        await h.ctx.sessions.flush(agent.session)
        await h.ctx.scope.dispose()
        h = await start()
        agent = await h.ctx.agentLoop.resume(id, { provider: 'mock', model: 'm1' })
        break
    }
  }
  await h.ctx.sessions.flush(agent.session)
  const stored = await h.ctx.sessionPersistence!.inspect(id)
  await h.ctx.scope.dispose()
  return { id, live: live.flatMap((rec) => rec.spans()), events: stored.events }
}

describe('live spans equal the spans exported from the stored log', () => {
  it('for random scripted sessions (property)', async () => {
    // what the runs covered, so the property cannot pass on sessions that never reach a feature
    const seen = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fc.array(planArb, { minLength: 1, maxLength: 7 }), fc.boolean(), async (plans, content) => {
        const { id, live, events } = await runSession(plans, content)
        const exported = recorder()
        traceSessionLog(id, events, exported.provider, { content, secrets: ['secret-value-123'] })
        const livePlain = plain(live)
        expect(plain(exported.spans())).toEqual(livePlain)
        // every turn of the log is a span, and nothing was left open
        const turns = events.filter((e) => e.type === 'turn/start').length
        expect(livePlain.filter((s) => s.name === 'invoke_agent')).toHaveLength(turns)
        expect(livePlain.some((s) => 'bridle.unfinished' in s.attributes)).toBe(false)
        if (content) expect(JSON.stringify(livePlain)).not.toContain('secret-value-123')
        // the bridle.cache.* facts (and a rebuild error) are what the verifying cache report says of each request
        const rows = new Map(cachePrefixReport(events).map((row) => [row.seq, row]))
        for (const span of livePlain.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')) {
          const row = rows.get(span.attributes['bridle.request.seq'] as number)!
          const expected: Attributes = {}
          cacheAttributes(row, expected)
          const cacheFacts = Object.fromEntries(
            Object.entries(span.attributes).filter(
              ([k]) => k.startsWith('bridle.cache.') || k.endsWith('rebuild_error'),
            ),
          )
          expect(cacheFacts).toEqual(expected)
        }
        for (const span of livePlain) {
          const a = span.attributes
          if (a['bridle.request.purpose'] === 'compaction') seen.add('summary request')
          if (String(a['bridle.cache.break_reason']).includes('compaction in turn')) seen.add('compaction break')
          if (a['bridle.attempt'] === 2) seen.add('retry')
          if (a['bridle.request.header_reason'] === 'resume') seen.add('resume')
          if (a['bridle.turn.end_reason'] === 'aborted') seen.add('aborted')
          if (a['bridle.turn.end_reason'] === 'blocked') seen.add('blocked')
          if (span.status.code === 'error') seen.add(`${String(a['gen_ai.operation.name'])} error`)
        }
      }),
      { numRuns: 25 },
    )
    expect([...seen].sort()).toEqual([
      'aborted',
      'blocked',
      'chat error',
      'compaction break',
      'execute_tool error',
      'invoke_agent error',
      'resume',
      'retry',
      'summary request',
    ])
  })
})
