// The secret filter on a streamed answer, the way `bridle run` streams one: a loopback chat-completions server sends a
// 10,000-delta answer, `@bridle/llm-openai` reads it, `ctx.llm.stream` filters it as a stream, and the agent loop
// records every delta as `assistant/chunk` (each string through the append filter) in a JSONL session, then the
// assembled message. With 4 credentials known against none (the filter then passes chunks through untouched, as the
// path did before the filter existed). The answer is token-like text (` word`, ending inside a word) full of `s`, `sk`,
// `gh` and `AK` — starts of the keys — so about a quarter of the deltas end in a tail the filter must hold back; no key
// is in it. Each sample is the CPU time of one turn in this process (other processes share the cores; the turn's only
// wait is the loopback socket). The server runs in a child process (`answer-server.mjs`): in this process its
// encoding and writing of 10,000 events was more than half of every sample, work neither side of the ratio owes.
// Samples are paired on the same app, each after a full collection, in alternating order (none, 4 keys; then 4 keys,
// none; …); each pair and the next, taken in the other order, make one ratio (the geometric mean of their two), so
// whatever the second turn of a pair gains over the first cancels. The bar is the median of those ratios.
// A second table gives the cost of the stream filter alone (`redactChunks` over the same deltas, nothing else).
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { benchApp, fullGc, llm, middle, prng } from './lib.mjs'

const llmOpenai = await import(new URL('../packages/llm-openai/dist/index.js', import.meta.url).href)

const DELTAS = 10_000
/**
 * Pairs, in --quick too. The filter's cost is about 1 % of a turn (150 pairs: 1.004–1.015; the same 150 with no key on
 * either side: 1.002–1.004), while single pairs spread from 0.86 to 1.12: the median of 30 pairs moved by ±2 % between
 * runs (1.055 once under load), the median of 30 ratios of 60 pairs far less.
 */
const PAIRS = 60
/** Unrecorded turns of each kind first: the JIT settles over several turns, and early pairs weigh more in a short run. */
const WARM_TURNS = 4
const KEYS = [
  'sk-proj-7Hq2mZx9Lw4Rt8Vb1Nc6Yd3Kf5Gs0Pj',
  'ghp_R4nD0mT0k3nF0rB3nchM4rk1ngXyZ12',
  'AKIAIOSFODNN7BENCHMK',
  'sk-ant-api03-bench-0123456789abcdef',
]
const WORDS = [
  'skip',
  'sketch',
  'sky',
  'ask',
  'task',
  'risk',
  'git',
  'ghost',
  'AKA',
  'the',
  'stream',
  'secret',
  'filter',
  'sk',
  'const',
  'return',
  '=>',
  '{',
  '}',
  'session',
  'keys',
  'gh',
  'AK',
  'proj',
  'ant',
  '-',
  'api',
  'token',
  '\n',
]
const KNOWN = Symbol.for('bridle.llm.knownSecrets')

/** 10,000 deltas of 1 to 3 words each, token-like (` word`), the same every run. */
function answer() {
  const random = prng(38)
  return Array.from({ length: DELTAS }, () => {
    const n = 1 + Math.floor(random() * 3)
    return ` ${Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')}`
  })
}

/** `answer-server.mjs` in a child process streaming `deltas` to every request: its URL and a `close()`. */
async function answerServer(deltas) {
  const child = fork(new URL('./answer-server.mjs', import.meta.url), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  child.send(deltas)
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  return {
    url,
    async close() {
      const exited = once(child, 'exit')
      child.disconnect()
      await exited
    },
  }
}

/** CPU milliseconds of `work()`. */
async function cpu(work) {
  const started = process.cpuUsage()
  await work()
  const used = process.cpuUsage(started)
  return (used.user + used.system) / 1000
}

export async function secretsFilter() {
  const deltas = answer()
  const none = new llm.SecretFilter()
  const four = new llm.SecretFilter(KEYS)
  const saved = globalThis[KNOWN]
  const root = mkdtempSync(join(tmpdir(), 'bridle-bench-secrets-'))
  const server = await answerServer(deltas)
  const ctx = await benchApp(() => {}, { persistence: { root, checkpoints: false } })
  ctx.plugin(llmOpenai, {
    provider: 'wire',
    baseURL: server.url,
    apiKeyEnv: null,
    maxRetries: 0,
    models: [{ id: 'answer', contextWindow: 1_000_000 }],
  })

  /** One turn with `filter` as the process's known secrets; its CPU milliseconds. */
  const turn = async (filter) => {
    globalThis[KNOWN] = filter
    const agent = ctx.agentLoop.create({ provider: 'wire', model: 'answer' })
    fullGc()
    const ms = await cpu(async () => {
      agent.followup(llm.createUserMessage('write it out'))
      await agent.whenIdle()
      await ctx.sessions.flush(agent.session)
    })
    const chunks = agent.session.events.filter((e) => e.type === 'assistant/chunk').length
    if (chunks < DELTAS) throw new Error(`the turn recorded ${chunks} chunks, expected at least ${DELTAS}`)
    await agent.dispose()
    return ms
  }

  /** The stream filter alone over the same deltas: `redactChunks` and nothing downstream. */
  const streamOnly = (filter) =>
    cpu(async () => {
      async function* source() {
        for (const text of deltas) yield { type: 'text-delta', index: 0, text }
        yield { type: 'finish', reason: { kind: 'stop' } }
      }
      for await (const _ of llm.redactChunks(source(), filter));
    })

  const ratios = []
  const times = { none: [], four: [] }
  const alone = { none: [], four: [] }
  try {
    // warm both paths before any sample counts
    for (let i = 0; i < WARM_TURNS; i++) await turn(none), await turn(four)
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0 ? none : four
      const x = await turn(first)
      const y = await turn(first === none ? four : none)
      const [a, b] = first === none ? [x, y] : [y, x]
      times.none.push(a)
      times.four.push(b)
      ratios.push(b / a)
      alone.none.push(await streamOnly(none))
      alone.four.push(await streamOnly(four))
    }
  } finally {
    globalThis[KNOWN] = saved
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
  // each pair with the next, which ran in the other order
  const quads = []
  for (let i = 0; i + 1 < ratios.length; i += 2) quads.push(Math.sqrt(ratios[i] * ratios[i + 1]))
  const ratio = middle(quads)
  const perDelta = ((middle(alone.four) - middle(alone.none)) * 1e6) / DELTAS
  return {
    title: `Secret filter: one turn streaming a ${DELTAS.toLocaleString('en')}-delta answer from a loopback server into a JSONL session, ${PAIRS} paired samples`,
    columns: [
      'known credentials',
      'turn (CPU ms, median)',
      'median of ratios (two pairs in opposite order each)',
      'stream filter alone (CPU ms)',
    ],
    rows: [
      ['none (chunks pass through)', middle(times.none).toFixed(1), '1.00', middle(alone.none).toFixed(2)],
      [
        '4 (stream filter + append filter)',
        middle(times.four).toFixed(1),
        ratio.toFixed(3),
        `${middle(alone.four).toFixed(2)} (+${perDelta.toFixed(0)} ns a delta)`,
      ],
    ],
    bars: [{ name: 'the filter with 4 credentials ≤ 1.05× the unfiltered stream', value: ratio, ok: ratio <= 1.05 }],
  }
}
