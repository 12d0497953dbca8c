/**
 * Provability (docs/provability.md), the randomized runs: a randomized run (plugins loaded in random order, a runtime context
 * that changes, a compaction, a resume, a hot reload and a cancelled turn, in a seeded random order) verifies clean
 * for every step — live, and from the stored file in a fresh context — and its cache report names the compaction
 * and the hot-reloaded section as the only breaks.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type ForkScope } from 'cordis'
import { afterAll, describe, expect, it } from 'vitest'
import { ReadFile } from '@bridle/plugin-read-file'
import { Workspace } from '@bridle/plugin-workspace'
import { Environment } from '@bridle/plugin-environment'
import type { Agent } from '@bridle/agent-loop'
import type { GenerateOptions } from '@bridle/llm'
import {
  cachePrefixReport,
  requestDigestParts,
  SessionStore,
  verifyDigests,
  type CachePrefixRow,
  type SessionEvent,
} from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import {
  BACKENDS,
  bootApp,
  callTools,
  closeBackends,
  corePlugins,
  hangUntilAborted,
  prng,
  say,
  shuffle,
  tick,
  user,
  type App,
  type Backend,
  type PluginLoad,
} from './provability-support.js'

const SEEDS = [1, 7, 42, 1234, 90210]
const OPS = ['context-change', 'compaction', 'resume', 'hot-reload', 'cancel'] as const
type Op = (typeof OPS)[number]

const RULES_SECTION = 'rules:style'
const rulesText = (version: number) => `Style rules v${version}: answer in one short paragraph.`

/** A plugin contributing one system section; every version is a new plugin object, as after a code change. */
function rulesPlugin(version: number) {
  return {
    name: `rules-v${version}`,
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.section({ name: RULES_SECTION, order: 60, text: rulesText(version) })
    },
  }
}

interface RunState {
  clock: number
  rulesVersion: number
  rulesFork?: ForkScope
}

/** A runtime context whose value is whatever the run's clock says at assembly time. */
function clockPlugin(state: RunState) {
  return {
    name: 'clock',
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.context({ name: 'clock', order: 40, text: () => `clock: tick ${state.clock}` })
    },
  }
}

interface Scenario {
  seed: number
  ops: Op[]
  loadOrders: (readonly string[])[]
  /** The live agent's events at the end (the resumed instance: old events, end-seed, new events). */
  live: readonly SessionEvent[]
  /** The same session as a fresh process reads it back from disk. */
  stored: readonly SessionEvent[]
  /** Every request any adapter received, in order, across both processes. */
  requests: GenerateOptions[]
  /** Cached tokens each response reported, per request. */
  cached: (number | undefined)[]
  compaction: { seq: number; start: number; end: number }
  hotReload: { digestsBefore: number; from: number; to: number }
  compactionDigestsBefore: number
  cancelledTurn: number
}

const roots: string[] = []
afterAll(async () => {
  for (const dir of roots.splice(0)) await rm(dir, { recursive: true, force: true })
  await closeBackends()
})

const runs = new Map<string, Promise<Scenario>>()
const scenario = (seed: number, backend: Backend) => {
  const key = `${backend}:${seed}`
  if (!runs.has(key)) runs.set(key, runScenario(seed, backend))
  return runs.get(key)!
}

async function runScenario(seed: number, backend: Backend): Promise<Scenario> {
  const random = prng(seed)
  const int = (n: number) => Math.floor(random() * n)
  const root = await mkdtemp(join(tmpdir(), 'bridle-prov-run-'))
  const workspace = await mkdtemp(join(tmpdir(), 'bridle-prov-ws-'))
  roots.push(root, workspace)
  await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: `pkg-${seed}`, version: '1.0.0' }, null, 2))
  const id = `run-${seed}`
  const state: RunState = { clock: 0, rulesVersion: 1 }
  const requests: GenerateOptions[][] = []
  const cached: (number | undefined)[] = []
  const loadOrders: (readonly string[])[] = []

  /** Boots one process: every plugin, the rules section at its current version, in a seeded random order. */
  const boot = async (): Promise<App> => {
    const plugins: PluginLoad[] = [
      ...corePlugins(root, { persona: 'You maintain the {{cwd}} workspace in {{region}}.' }),
      { name: 'read-file', load: (ctx) => ctx.plugin(ReadFile) },
      { name: 'workspace', load: (ctx) => ctx.plugin(Workspace, { git: false }) },
      { name: 'environment', load: (ctx) => ctx.plugin(Environment, { environment: 'test', region: 'eu-test-1' }) },
      { name: 'clock', load: (ctx) => ctx.plugin(clockPlugin(state)) },
      { name: 'rules', load: (ctx) => void (state.rulesFork = ctx.plugin(rulesPlugin(state.rulesVersion))) },
    ]
    const app = await bootApp(shuffle(plugins, random), backend)
    loadOrders.push(app.loadOrder)
    requests.push(app.requests)
    return app
  }

  let turnNo = 0
  /** Queues the responses of one ordinary turn (sometimes with a read_file step) and runs it. */
  const ordinaryTurn = async (app: App, agent: Agent) => {
    turnNo++
    const answer = (tokens: number | undefined) => say(`answer ${turnNo}`, tokens)
    if (random() < 0.5) {
      app.script.push((request) => {
        cached.push(undefined)
        return callTools({ id: `call-${turnNo}`, name: 'read_file', args: '{"path":"package.json"}' })(request)
      })
    }
    const tokens = random() < 0.5 ? undefined : int(5000)
    app.script.push((request) => {
      cached.push(tokens)
      return answer(tokens)(request)
    })
    agent.followup(user(`question ${turnNo}`))
    await agent.whenIdle()
    expect(app.script).toHaveLength(0)
    expect(agent.session.events.findLast((e) => e.type === 'turn/end')!.data).toMatchObject({
      reason: { kind: 'completed' },
    })
  }
  const digestCount = (agent: Agent) => agent.session.events.filter((e) => e.type === 'request/digest').length

  let app = await boot()
  let agent = app.agent({ sessionId: id, cwd: workspace })
  await ordinaryTurn(app, agent)
  await ordinaryTurn(app, agent)

  const ops = shuffle(OPS, random)
  let compaction: Scenario['compaction'] | undefined
  let compactionDigestsBefore = -1
  let hotReload: Scenario['hotReload'] | undefined
  let cancelledTurn = -1
  for (const op of ops) {
    switch (op) {
      case 'context-change':
        state.clock++
        break
      case 'compaction': {
        // While idle: replace a range of whole turns (so tool calls keep their results) with one summary.
        const nodes = agent.session.surface.nodes
        const events = agent.session.events
        const isPrompt = (seq: number) =>
          events[seq]!.type === 'user/message' &&
          (events[seq]!.data as { source: { kind: string } }).source.kind === 'user'
        const starts = nodes.map((seq, i) => (isPrompt(seq) ? i : -1)).filter((i) => i >= 0)
        const start = starts[int(starts.length)]!
        const ends = [...starts.filter((i) => i > start).map((i) => i - 1), nodes.length - 1]
        const end = ends[int(ends.length)]!
        const shadowed = nodes.slice(start, end + 1)
        compactionDigestsBefore = digestCount(agent)
        const event = agent.session.append('user/message', user(`summary of ${shadowed.length} messages`), {
          surfaceOp: { op: 'replace', start: nodes[start]!, end: nodes[end]! },
          sourceEventSeqs: [...shadowed],
        })
        compaction = { seq: event.seq, start, end }
        break
      }
      case 'resume': {
        expect(await app.ctx.sessions.flush(agent.session)).toBe(true)
        await agent.dispose()
        app = await boot()
        agent = await app.resume(id)
        expect(agent.session.events.at(-1)!.type).toBe('session/end-seed')
        break
      }
      case 'hot-reload': {
        hotReload = { digestsBefore: digestCount(agent), from: state.rulesVersion, to: state.rulesVersion + 1 }
        await state.rulesFork!.dispose()
        state.rulesVersion++
        state.rulesFork = app.ctx.plugin(rulesPlugin(state.rulesVersion))
        await tick()
        break
      }
      case 'cancel': {
        let dispatched!: () => void
        const reached = new Promise<void>((resolve) => (dispatched = resolve))
        app.script.push(
          hangUntilAborted(() => {
            cached.push(undefined)
            dispatched()
          }),
        )
        agent.followup(user('a long task that will be cancelled'))
        await reached
        agent.cancel({ kind: 'user' })
        await agent.whenIdle()
        const end = agent.session.events.findLast((e) => e.type === 'turn/end')!.data as {
          turn: number
          reason: unknown
        }
        expect(end.reason).toMatchObject({ kind: 'aborted', reason: { kind: 'user' } })
        cancelledTurn = end.turn
        break
      }
    }
    // Every op is followed by an ordinary turn, sometimes two.
    await ordinaryTurn(app, agent)
    if (random() < 0.3) await ordinaryTurn(app, agent)
  }

  expect(await app.ctx.sessions.flush(agent.session)).toBe(true)
  const live = agent.session.events
  const reader = new Context()
  reader.plugin(SessionStore)
  reader.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  await tick()
  const stored = (await reader.sessionPersistence!.inspect(id)).events
  await agent.dispose()
  return {
    seed,
    ops,
    loadOrders,
    live,
    stored,
    requests: requests.flat(),
    cached,
    compaction: compaction!,
    compactionDigestsBefore,
    hotReload: hotReload!,
    cancelledTurn,
  }
}

const label = (r: { turn: number; step: number; attempt: number }) => `${r.turn}.${r.step}#${r.attempt}`

describe.each(BACKENDS)('provability: a randomized run, model route %s', (backend) => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: every step verifies clean, live and from the stored file, and digests what the adapter received`, async () => {
      const run = await scenario(seed, backend)
      // The plugin orders really were shuffled (per process), and the run really contains every feature.
      expect(run.loadOrders).toHaveLength(2)
      expect(run.stored.map((e) => e.type)).toContain('session/end-seed')
      const digests = run.live.filter((e) => e.type === 'request/digest')
      expect(digests.length).toBe(run.requests.length)
      expect(run.cancelledTurn).toBeGreaterThan(0)
      expect([...run.loadOrders[1]!].sort()).toEqual([...run.loadOrders[0]!].sort())
      expect(
        run.live
          .filter((e) => e.type === 'request/header')
          .map((e) => (e.data as { reason: string }).reason)
          .sort(),
      ).toEqual(['change', 'initial', 'resume'])
      // The changed runtime context reached the model as a new snapshot.
      const texts = run.requests.map((r) => JSON.stringify(r.messages))
      expect(texts[0]).toContain('clock: tick 0')
      expect(texts.at(-1)).toContain('clock: tick 1')
      expect(run.live.some((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('clock: tick 1'))).toBe(
        true,
      )

      if (backend === 'anthropic') {
        // the placement went through the log: one request/cache per conversation request, covered by its digest
        const conversation = digests.filter((e) => (e.data as { purpose?: string }).purpose === undefined)
        expect(conversation.every((e) => /^[0-9a-f]{64}$/.test((e.data as { cache?: string }).cache ?? ''))).toBe(true)
        expect(run.live.filter((e) => e.type === 'request/cache').length).toBeGreaterThanOrEqual(conversation.length)
      }

      const liveResults = verifyDigests(run.live)
      expect(liveResults.filter((r) => !r.ok)).toEqual([])
      expect(liveResults.length).toBe(digests.length)

      // A later process holding only the file gets the same events and the same verdicts.
      expect(run.stored).toEqual(run.live)
      const storedResults = verifyDigests(run.stored)
      expect(storedResults.map((r) => [label(r), r.ok])).toEqual(liveResults.map((r) => [label(r), true]))

      // Each recorded digest is the digest of exactly the object the adapter received.
      digests.forEach((event, i) => {
        const { signal: _signal, sessionId: _sessionId, ...sent } = run.requests[i]!
        expect(event.data).toMatchObject(JSON.parse(JSON.stringify(requestDigestParts(sent))))
      })
      // The cancelled turn's request was dispatched, so it has a digest and it verifies.
      expect(liveResults.some((r) => r.turn === run.cancelledTurn && r.ok)).toBe(true)
    })

    it(`seed ${seed}: the cache report names the compaction and the hot-reloaded section as the only breaks`, async () => {
      const run = await scenario(seed, backend)
      const report = cachePrefixReport(run.stored)
      expect(report.length).toBe(run.requests.length)
      expect(report.every((row) => row.error === undefined)).toBe(true)
      expect(report[0]!.previousSeq).toBeUndefined()

      const systemBreaks = report.filter((row) => row.system !== undefined && !row.system.kept)
      const toolBreaks = report.filter((row) => row.tools !== undefined && !row.tools.kept)
      const messageBreaks = report.filter((row) => row.messages !== undefined && !row.messages.kept)

      // The hot reload: the first request after it, and only that one, breaks the system prefix, at the rules line.
      const afterReload = report[run.hotReload.digestsBefore]!
      expect(systemBreaks).toEqual([afterReload])
      expect(afterReload.system).toEqual({
        kept: false,
        firstDifferingLine:
          run.requests[run.hotReload.digestsBefore]!.system!.split('\n').indexOf(rulesText(run.hotReload.to)) + 1,
        previousLine: rulesText(run.hotReload.from),
        currentLine: rulesText(run.hotReload.to),
        // from the two headers' section manifests: the reloaded plugin's section, and nothing else
        sections: [{ kind: 'changed', name: RULES_SECTION }],
      })
      expect(afterReload.system).toMatchObject({ firstDifferingLine: expect.any(Number) })
      expect((afterReload.system as { firstDifferingLine: number }).firstDifferingLine).toBeGreaterThan(1)
      expect(afterReload.prefixKept!.messages).toBe(0)
      expect(toolBreaks).toEqual([])

      // The compaction: the first request after it, and only that one, breaks the message chain, naming the replace.
      const afterCompaction = report[run.compactionDigestsBefore]!
      expect(messageBreaks).toEqual([afterCompaction])
      expect(afterCompaction.messages).toEqual({
        kept: false,
        firstDifferingPosition: run.compaction.start,
        cause: { kind: 'replace', seq: run.compaction.seq },
      })

      // Everything else held: the context change (a snapshot at the tail), the resume (same header again) and the
      // cancelled turn break nothing.
      // A kept row keeps the whole previous request as its prefix; the compaction keeps the messages before it.
      report.forEach((row: CachePrefixRow, i) => {
        if (i === 0) return
        if (row !== afterReload) expect(row.system).toEqual({ kept: true })
        if (row !== afterCompaction) expect(row.messages).toEqual({ kept: true })
        if (row !== afterReload && row !== afterCompaction) {
          expect(row.prefixKept!.messages).toBe(run.requests[i - 1]!.messages.length)
        }
      })
      expect(afterCompaction.prefixKept!.messages).toBe(run.compaction.start)
      if (backend === 'anthropic') {
        // from the log alone: every conversation request shows its placement, and the two breaks name their cause
        const conversation = report.filter((row) => row.purpose === undefined)
        expect(conversation.every((row) => row.cachePlan?.policy === 'bridle')).toBe(true)
        expect(afterReload.cachePlan?.miss).toEqual({ kind: 'system-changed' })
        expect(afterCompaction.cachePlan?.miss).toMatchObject({ kind: 'history-changed' })
      }
      expect(report.map((row) => row.cachedInputTokens)).toEqual(run.cached)
    })
  }
})
