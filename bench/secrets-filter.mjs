// The secret filter on a streamed answer: one agent turn whose model streams a 10,000-delta answer, from the adapter
// through `ctx.llm.stream` (the stream filter) into the session log (`assistant/chunk` per delta, each string through
// the append filter) and the assembled message, with 4 credentials known against none (the filter then passes chunks
// through untouched, as the path did before it existed). The answer is code-and-prose text full of `s`, `sk`, `gh` and
// `AK` — starts of the keys — so the filter holds and releases tails all the time; no key is in it. Samples are paired
// (none, 4 keys, none, 4 keys, …) on the same app, each after a full collection (else the second of a pair pays for
// the first one's garbage), and the bar is the median of the paired ratios.
import { benchApp, fullGc, llm, middle, prng, quick } from './lib.mjs'

const DELTAS = 10_000
const PAIRS = quick ? 5 : 21
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

/** 10,000 deltas of 1 to 3 words each, the same every run. */
function answer() {
  const random = prng(38)
  return Array.from({ length: DELTAS }, () => {
    const n = 1 + Math.floor(random() * 3)
    return Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + ' '
  })
}

const KNOWN = Symbol.for('bridle.llm.knownSecrets')

export async function secretsFilter() {
  const deltas = answer()
  const ctx = await benchApp()
  ctx.llm.registerAdapter(['stream'], {
    async *stream() {
      yield { type: 'block-start', index: 0, blockType: 'text' }
      for (const text of deltas) yield { type: 'text-delta', index: 0, text }
      yield { type: 'block-end', index: 0, block: { type: 'text', text: deltas.join('') } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  })
  const none = new llm.SecretFilter()
  const four = new llm.SecretFilter(KEYS)
  const saved = globalThis[KNOWN]

  /** One turn with `filter` as the process's known secrets; milliseconds from prompt to idle. */
  const turn = async (filter) => {
    globalThis[KNOWN] = filter
    const agent = ctx.agentLoop.create({ provider: 'stream', model: 'answer' })
    // the previous sample's 10,000 events are garbage now: collect them here, not during this sample
    fullGc()
    const started = performance.now()
    agent.followup(llm.createUserMessage('write it out'))
    await agent.whenIdle()
    const ms = performance.now() - started
    const chunks = agent.session.events.filter((e) => e.type === 'assistant/chunk').length
    if (chunks < DELTAS) throw new Error(`the turn recorded ${chunks} chunks, expected at least ${DELTAS}`)
    await agent.dispose()
    return ms
  }

  const ratios = []
  const times = { none: [], four: [] }
  try {
    // warm both paths before any sample counts
    await turn(none)
    await turn(four)
    for (let i = 0; i < PAIRS; i++) {
      const a = await turn(none)
      const b = await turn(four)
      times.none.push(a)
      times.four.push(b)
      ratios.push(b / a)
    }
  } finally {
    globalThis[KNOWN] = saved
  }
  const ratio = middle(ratios)
  return {
    title: `Secret filter: one turn streaming a ${DELTAS.toLocaleString('en')}-delta answer into the log, ${PAIRS} paired samples`,
    columns: ['known credentials', 'turn (ms, median)', 'median of paired ratios'],
    rows: [
      ['none (chunks pass through)', middle(times.none).toFixed(1), '1.00'],
      ['4 (stream filter + append filter)', middle(times.four).toFixed(1), ratio.toFixed(3)],
    ],
    bars: [{ name: 'the filter with 4 credentials ≤ 1.05× the unfiltered stream', value: ratio, ok: ratio <= 1.05 }],
  }
}
