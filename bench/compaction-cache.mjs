// Cache prefix over a long compacting run: 300 turns with 1–3 tool calls each, an 8,192-token window, and
// @bridle/plugin-compaction (threshold 0.75, low-water 0.35). The model is in-process: it counts prompt tokens with a
// real tokenizer (gpt-tokenizer, o200k) and reports as cached the longest prefix (tools, then whole messages) it has
// served before, as a provider's prefix cache would. From the session log (`cachePrefixReport`): the share of
// conversation requests whose prefix held — the bar is every one but the first after each compaction — how much of
// the cached prefix the summary requests reused, and the tokens each compaction saved.
import { createHash } from 'node:crypto'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { bootCore, llm, quick, session, tick } from './lib.mjs'

const compaction = await import(new URL('../plugins/compaction/dist/index.js', import.meta.url).href)

const WINDOW = 8192
const THRESHOLD = 0.75
const LOW_WATER = 0.35

const words = (label, chars, salt) => {
  const pool = ['river', 'stone', 'lamp', 'orbit', 'cedar', 'signal', 'harbor', 'prism', 'velvet', 'quartz', 'meadow']
  let out = label
  for (let i = salt; out.length < chars; i++) out += ' ' + pool[(i * 7 + salt) % pool.length]
  return out.slice(0, chars)
}

/** The in-process model: tool rounds per task, then an answer; summaries for summary requests; tokenized usage. */
function model() {
  const tokensOf = new Map()
  const count = (text) => {
    let n = tokensOf.get(text)
    if (n === undefined) tokensOf.set(text, (n = encode(text).length))
    return n
  }
  const seen = new Set()
  const served = []
  const adapter = {
    resolveModel: (provider, id) => ({ provider, id, name: id, context: { contextWindow: WINDOW } }),
    async *stream(request) {
      const parts = [
        JSON.stringify(request.tools ?? []) + (request.system ?? ''),
        ...request.messages.map((m) => JSON.stringify(m.content)),
      ]
      let prompt = 0
      let cached = 0
      let hash = ''
      let held = true
      for (const [i, part] of parts.entries()) {
        const tokens = count(part) + (i > 0 ? 4 : 0)
        hash = createHash('sha256').update(hash).update(part).digest('hex')
        if (held && seen.has(hash) && i > 0) cached = prompt + tokens
        else if (i > 0) held = false
        prompt += tokens
        seen.add(hash)
      }
      const summary = request.purpose === 'compaction'
      served.push({ summary, prompt, cached })
      const usage = { inputTokens: prompt - cached, cacheReadTokens: cached, outputTokens: 50 }
      let text
      if (summary) text = words(`Summary of ${request.messages.length - 1} messages:`, 1400, request.messages.length)
      else {
        let results = 0
        let task = 0
        for (let i = request.messages.length - 1; i >= 0 && task === 0; i--) {
          const m = request.messages[i]
          if (m.content.some((b) => b.type === 'tool-result')) results++
          const found = m.source.kind === 'user' && /task (\d+)/.exec(llm.textOf(m.content))
          if (found) task = Number(found[1])
        }
        if (results < 1 + ((task * 5) % 3)) {
          const id = `call_${task}_${results + 1}`
          const args = JSON.stringify({ topic: `task ${task} part ${results + 1}` })
          yield { type: 'block-start', index: 0, blockType: 'tool-call' }
          yield { type: 'tool-call-delta', index: 0, id, name: 'lookup', argumentsDelta: args }
          yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: 'lookup', arguments: args } }
          yield { type: 'usage', usage }
          yield { type: 'finish', reason: { kind: 'tool-calls' } }
          return
        }
        text = words(`Answer to task ${task}:`, 320, task)
      }
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'text-delta', index: 0, text }
      yield { type: 'block-end', index: 0, block: { type: 'text', text } }
      yield { type: 'usage', usage }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  }
  return { adapter, served }
}

const pct = (x) => `${(x * 100).toFixed(1)}%`

export async function compactionCache() {
  const turns = quick ? 120 : 300
  const ctx = bootCore()
  const { adapter, served } = model()
  ctx.llm.registerAdapter(['bench'], adapter)
  ctx.systemPrompt.section({
    name: 'bench:persona',
    order: 0,
    text: 'You help with numbered research tasks. Use lookup for facts.',
  })
  ctx.tools.register({
    name: 'lookup',
    description: 'Looks up notes on a topic.',
    parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    execute: (args) => words(`Notes on ${args.topic}:`, 900, args.topic.length),
  })
  ctx.plugin(compaction.Compaction, { threshold: THRESHOLD, lowWater: LOW_WATER, summaryMaxTokens: 512 })
  await tick()
  const agent = ctx.agentLoop.create({ provider: 'bench', model: 'tokenized' })
  for (let n = 1; n <= turns; n++) {
    agent.followup(llm.createUserMessage(`task ${n}: ${words('please look into', 260 + (n % 7) * 40, n)}`))
    await agent.whenIdle()
  }
  const report = session.cachePrefixReport(agent.session.events)
  await agent.dispose()

  const conversation = report.filter((r) => r.purpose === undefined && r.previousSeq !== undefined)
  const held = conversation.filter((r) => r.system?.kept && r.tools?.kept && r.messages?.kept)
  const broken = conversation.filter((r) => !held.includes(r))
  const byCompaction = broken.filter(
    (r) => r.messages?.kept === false && r.messages.cause.kind === 'replace' && r.messages.cause.compaction,
  )
  const summaries = report.filter((r) => r.purpose === 'compaction')
  const reuse = summaries.map((r) => r.cachedInputTokens / r.inputTokens)
  const saved = byCompaction.map((r) => r.messages.cause.compaction.tokensSaved).sort((a, b) => a - b)
  const maxConversation = Math.max(...served.filter((s) => !s.summary).map((s) => s.prompt))
  const cachedShare = served.reduce((a, s) => a + s.cached, 0) / served.reduce((a, s) => a + s.prompt, 0)
  const expected = conversation.length - summaries.length
  return {
    title: `Cache prefix over a compacting run (${turns} turns with tool calls, ${WINDOW}-token window, threshold ${THRESHOLD}, low-water ${LOW_WATER})`,
    columns: [
      'conversation requests',
      'prefix held',
      'breaks (all compactions)',
      'summary requests: cached share',
      'tokens saved per compaction (median)',
      'largest request',
      'input served from cache',
    ],
    rows: [
      [
        String(conversation.length + 1),
        `${held.length} of ${conversation.length} (${pct(held.length / conversation.length)})`,
        `${broken.length} (${byCompaction.length} named compactions)`,
        `${pct(Math.min(...reuse))}–${pct(Math.max(...reuse))}`,
        String(saved[Math.floor(saved.length / 2)] ?? 0),
        `${maxConversation} tokens (${pct(maxConversation / WINDOW)} of the window)`,
        pct(cachedShare),
      ],
    ],
    bars: [
      {
        name: 'every conversation request but the first after each compaction keeps the previous prefix',
        value: held.length,
        ok: held.length === expected && broken.length === byCompaction.length && broken.length === summaries.length,
      },
      {
        name: `every conversation request stays under ${THRESHOLD} of the window`,
        value: maxConversation / WINDOW,
        ok: maxConversation <= THRESHOLD * WINDOW,
      },
    ],
  }
}
