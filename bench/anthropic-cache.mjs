// Anthropic prompt-cache placement: a scripted 50-turn session run through the real agent loop with
// @bridle/llm-anthropic's real serializer and breakpoint policy, its Messages request bodies recorded with a virtual
// clock, then billed by the package's cache simulator (as the API documents: prefixes cached only at breakpoints,
// 20-block lookback, per-model minimum, 5m/1h TTL renewed on use, write 1.25×/2×, read 0.1×) under six placements:
// none; one breakpoint on the last message (most peers); system + tools + last message (LangChain's caching
// middleware); the API's automatic top-level cache_control; Bridle's (the markers the adapter put on the wire); and a
// hindsight oracle that searches placements per request knowing the whole sequence. The session has tool calls (one
// step with 12 parallel calls, so more than 20 blocks arrive at once), an early and a late system section that each
// change once, a runtime context that changes every 5 turns, a 7-minute pause, and an HMR reload of one plugin that
// adds a tool. Tokens are counted with gpt-tokenizer (o200k), not Claude's own tokenizer: the ratios are what matter.
// `BENCH_DEBUG=1` prints each request's bill under Bridle, the oracle and the last-message policy, to stderr.
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { bootCore, llm, tick } from './lib.mjs'

const anthropic = await import(new URL('../packages/llm-anthropic/dist/index.js', import.meta.url).href)
const { CacheSimulator, blocksOfBody, simRequest } = await import(
  new URL('../packages/llm-anthropic/dist/testing.js', import.meta.url).href
)

const TURNS = 50
const MODEL = 'claude-sonnet-4-5'
const PARALLEL_TURN = 20
const EARLY_CHANGE = 12
const LATE_CHANGE = 38
const RELOAD_TURN = 25
const PAUSE_BEFORE = 30
const PAUSE_MS = 7 * 60_000

const words = (label, chars, salt) => {
  const pool = ['river', 'stone', 'lamp', 'orbit', 'cedar', 'signal', 'harbor', 'prism', 'velvet', 'quartz', 'meadow']
  let out = label
  for (let i = salt; out.length < chars; i++) out += ` ${pool[(i * 7 + salt) % pool.length]}`
  return out.slice(0, chars)
}

/** Tool calls of each step of turn `n`: one call per step for 1–3 steps; turn 20 has one step of 12 calls. */
const stepsOf = (n) => (n === PARALLEL_TURN ? [12] : Array.from({ length: 1 + (n % 3) }, () => 1))

/** Runs the session; returns the recorded request bodies with their virtual times and the turn each belongs to. */
async function recordSession() {
  const ctx = bootCore()
  const config = anthropic.resolveConfig({})
  const policy = new anthropic.AnthropicAdapter(config)
  const recorded = []
  let now = 0
  let turn = 0
  ctx.llm.registerAdapter(['anthropic'], {
    resolveModel: (provider, model) => policy.resolveModel(provider, model),
    planCache: (input) => policy.planCache(input),
    async *stream(request) {
      recorded.push({ time: now, turn, body: anthropic.buildRequestBody(request, config) })
      now += 3000
      let step = 0
      for (let i = request.messages.length - 1; i >= 0; i--) {
        const m = request.messages[i]
        if (m.source.kind === 'user') break
        if (m.role === 'assistant') step++
      }
      const steps = stepsOf(turn)
      if (step < steps.length) {
        for (let c = 0; c < steps[step]; c++) {
          const id = `toolu_${turn}_${step}_${c}`
          const args = JSON.stringify({ path: `src/module-${turn}-${step}-${c}.ts` })
          yield { type: 'block-start', index: c, blockType: 'tool-call' }
          yield { type: 'block-end', index: c, block: { type: 'tool-call', id, name: 'read_file', arguments: args } }
        }
        yield { type: 'finish', reason: { kind: 'tool-calls' } }
        return
      }
      const text = words(`Turn ${turn} answer:`, 700, turn)
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'block-end', index: 0, block: { type: 'text', text } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  })
  const sections = new Map()
  const section = (order, name, edit = 0) => {
    sections.get(name)?.()
    const text = words(`${name}${edit ? ` (revised ${edit})` : ''}:`, 1800, order * 13 + edit)
    sections.set(name, ctx.systemPrompt.section({ name, order, text }))
  }
  for (let i = 0; i < 8; i++) section(i, `bench:section-${i}`)
  ctx.systemPrompt.context({ name: 'bench:phase', order: 0, text: () => `phase ${Math.floor((turn - 1) / 5)}` })
  for (let i = 0; i < 9; i++) {
    ctx.tools.register({
      name: `tool_${i}`,
      description: words(`Tool ${i}:`, 600, i),
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: () => 'ok',
    })
  }
  const readFile = (c) =>
    c.tools.register({
      name: 'read_file',
      description: 'Reads a file of the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      concurrencySafe: true,
      execute: (args) => words(`contents of ${args.path}:`, 1400, args.path.length),
    })
  // the plugin an HMR reload replaces: version 2 adds a tool
  const plugin = (version) => ({
    name: 'bench-docs',
    inject: ['tools'],
    apply(c) {
      readFile(c)
      if (version > 1) {
        c.tools.register({
          name: 'search_docs',
          description: 'Searches the documentation.',
          parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          execute: () => 'no hits',
        })
      }
    },
  })
  let fork = ctx.plugin(plugin(1))
  await tick()
  const agent = ctx.agentLoop.create({ provider: 'anthropic', model: MODEL })
  for (turn = 1; turn <= TURNS; turn++) {
    if (turn === EARLY_CHANGE) section(1, 'bench:section-1', 1)
    if (turn === LATE_CHANGE) section(6, 'bench:section-6', 1)
    if (turn === RELOAD_TURN) {
      fork.dispose()
      fork = ctx.plugin(plugin(2))
    }
    await tick()
    now += turn === PAUSE_BEFORE ? PAUSE_MS : 30_000 + ((turn * 7) % 30) * 1000
    agent.followup(llm.createUserMessage(`turn ${turn}: ${words('please look into', 300 + (turn % 5) * 60, turn)}`))
    await agent.whenIdle()
  }
  await agent.dispose()
  return { recorded, minTokens: config.models.find((m) => m.id === MODEL).minCacheableTokens }
}

const tokenCache = new Map()
const count = (text) => {
  let n = tokenCache.get(text)
  if (n === undefined) tokenCache.set(text, (n = encode(text).length))
  return n
}

/** Index of the last block of each kind in a request's block list (tools end, system end). */
function ends(blocks) {
  let tools = -1
  let system = -1
  blocks.forEach((b, i) => {
    if (b.key.startsWith('tool|')) tools = i
    if (b.key.startsWith('system|')) system = i
  })
  return { tools, system }
}

const last = (r) => [{ at: r.blocks.length - 1, ttl: '5m' }]
const policies = {
  none: () => [],
  'last message': last,
  'system + tools + last message': (r) => {
    const { tools, system } = ends(r.blocks)
    return [...new Set([tools, system, r.blocks.length - 1])].filter((i) => i >= 0).map((at) => ({ at, ttl: '5m' }))
  },
  'automatic (top-level cache_control)': last,
  bridle: (r) => r.marked,
}

/** Blocks `i` and `j` share: the index of the last equal prefix hash, or -1. */
function lcp(a, b) {
  const n = Math.min(a.prefix.length, b.prefix.length)
  let k = 0
  while (k < n && a.prefix[k] === b.prefix[k]) k++
  return k - 1
}

/**
 * The hindsight oracle's placement for request `i`: candidates are the longest cached prefix (to read), the newest
 * block, the ends of tools and system, and every place where a later request (up to 10 ahead) stops sharing this
 * one; each gets 1h when the first later request that shares it comes more than 5 minutes on, else 5m. Every subset
 * of up to four is tried on a copy of the cache, with the next two requests placed greedily, and the cheapest wins.
 */
function oraclePlacement(sim, requests, i, minTokens) {
  const r = requests[i]
  const n = r.blocks.length
  let anchor = -1
  for (let k = n - 1; k >= 0; k--) {
    const e = sim.state.get(r.prefix[k])
    if (e && e.expires >= r.time) {
      anchor = k
      break
    }
  }
  const shared = []
  for (let j = i + 1; j < Math.min(requests.length, i + 11); j++) shared.push({ j, k: lcp(r, requests[j]) })
  const { tools, system } = ends(r.blocks)
  const ttlOf = (k) => {
    const first = shared.find((s) => s.k >= k)
    return first && requests[first.j].time - r.time > 5 * 60_000 ? '1h' : '5m'
  }
  const raw = [anchor, n - 1, tools, system, ...shared.map((s) => s.k)]
  const candidates = [...new Set(raw)].filter((k) => k >= 0 && r.tokensThrough[k] >= minTokens).slice(0, 8)
  let best
  for (const subset of subsets(candidates, 4)) {
    const placed = subset.sort((a, b) => a - b).map((at) => ({ at, ttl: ttlOf(at) }))
    const lastLong = placed.findLastIndex((b) => b.ttl === '1h')
    const breakpoints = placed.map((b, x) => (x < lastLong ? { ...b, ttl: '1h' } : b))
    const trial = sim.fork()
    let cost = trial.bill(r, breakpoints).cost
    for (let j = i + 1; j < Math.min(requests.length, i + 3); j++)
      cost += trial.bill(requests[j], greedy(trial, requests, j)).cost
    if (best === undefined || cost < best.cost) best = { cost, breakpoints }
  }
  return best.breakpoints
}

/** The lookahead's placement: the longest cached prefix, the newest block and where the next request diverges. */
function greedy(sim, requests, j) {
  const r = requests[j]
  const n = r.blocks.length
  let anchor = -1
  for (let k = n - 1; k >= 0 && anchor < 0; k--) {
    const e = sim.state.get(r.prefix[k])
    if (e && e.expires >= r.time) anchor = k
  }
  const next = requests[j + 1]
  const split = next ? lcp(r, next) : -1
  return [...new Set([anchor, split, n - 1])]
    .filter((k) => k >= 0)
    .sort((a, b) => a - b)
    .map((at) => ({ at, ttl: '5m' }))
}

function* subsets(items, max) {
  const n = items.length
  for (let mask = 0; mask < 1 << n; mask++) {
    let bits = 0
    for (let m = mask; m; m &= m - 1) bits++
    if (bits <= max) yield items.filter((_, i) => mask & (1 << i))
  }
}

function bill(requests, minTokens, place) {
  const sim = new CacheSimulator({ minTokens })
  return requests.map((r, i) => ({ turn: r.turn, total: r.totalTokens, ...sim.bill(r, place(r, i, sim)) }))
}

const pct = (x) => `${(x * 100).toFixed(1)}%`

export async function anthropicCache() {
  const { recorded, minTokens } = await recordSession()
  const requests = recorded.map(({ time, turn, body }) => {
    const { blocks, breakpoints } = blocksOfBody(body, count)
    return { ...simRequest(time, blocks), turn, marked: breakpoints }
  })
  const results = Object.entries(policies).map(([name, place]) => ({ name, bills: bill(requests, minTokens, place) }))
  results.push({
    name: 'hindsight oracle',
    bills: bill(requests, minTokens, (_, i, sim) => oraclePlacement(sim, requests, i, minTokens)),
  })
  if (process.env.BENCH_DEBUG) {
    const by = Object.fromEntries(results.map((r) => [r.name, r.bills]))
    requests.forEach((r, i) => {
      const b = by.bridle[i]
      const o = by['hindsight oracle'][i]
      const l = by['last message'][i]
      process.stderr.write(
        `${i} t${r.turn} n=${r.blocks.length} tot=${r.totalTokens} | bridle ${Math.round(b.cost)} r${b.read} w5 ${b.write5m} w1 ${b.write1h} u${b.uncached} [${r.marked.map((m) => `${m.at}:${m.ttl}`).join(',')}] | oracle ${Math.round(o.cost)} r${o.read} w5 ${o.write5m} w1 ${o.write1h} | last ${Math.round(l.cost)}\n`,
      )
    })
  }
  const summary = results.map(({ name, bills }) => {
    const cost = bills.reduce((a, b) => a + b.cost, 0)
    const later = bills.filter((b) => b.turn > 1)
    const readShare = later.reduce((a, b) => a + b.read, 0) / later.reduce((a, b) => a + b.total, 0)
    const writes = bills.reduce((a, b) => a + b.write5m + b.write1h, 0)
    return { name, cost, readShare, writes }
  })
  const get = (name) => summary.find((s) => s.name === name)
  const bridle = get('bridle')
  const oracle = get('hindsight oracle')
  const none = get('none')
  const others = summary.filter((s) => s.name !== 'bridle' && s.name !== 'hindsight oracle')
  const input = requests.reduce((a, r) => a + r.totalTokens, 0)
  return {
    title: `Anthropic prompt-cache placement (${TURNS} turns, ${requests.length} requests, ${input.toLocaleString('en-US')} input tokens; costs in base-input-token units)`,
    columns: [
      'policy',
      'cost per turn',
      'cost vs none',
      'cost vs oracle',
      'input read from cache after turn 1',
      'tokens written',
    ],
    rows: summary.map((s) => [
      s.name,
      Math.round(s.cost / TURNS).toLocaleString('en-US'),
      `${(s.cost / none.cost).toFixed(3)}×`,
      `${(s.cost / oracle.cost).toFixed(3)}×`,
      pct(s.readShare),
      s.writes.toLocaleString('en-US'),
    ]),
    bars: [
      {
        name: "Bridle's placement costs ≤ 1.05× the hindsight oracle",
        value: bridle.cost / oracle.cost,
        ok: bridle.cost <= 1.05 * oracle.cost,
      },
      {
        name: 'Bridle costs less than every other policy (ratio to the cheapest of them)',
        value: bridle.cost / Math.min(...others.map((s) => s.cost)),
        ok: others.every((s) => bridle.cost < s.cost),
      },
      {
        name: 'Bridle reads ≥ 90% of input tokens from cache after the first turn',
        value: bridle.readShare,
        ok: bridle.readShare >= 0.9,
      },
    ],
  }
}
