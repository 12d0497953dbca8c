// Per-step harness overhead, as DESIGN.md defines it: claim → frozen request, adapter excluded, with H history
// messages, 50 tools, 20 sections and 5 contexts. Each sample is one turn of one step through an adapter that answers
// at once; the clock runs from `followup()` (the inbox append the step claims) to the moment the adapter receives the
// frozen request, so it covers claim → assembly → runtime-context snapshot → pre-step → session appends →
// `deriveMessages()` → render → header → frozen request → digest → `llm/stream` dispatch. The rest of the turn (chunk
// and message appends, turn end) is outside that definition; it is timed too and reported beside it, without a bar.
import { bootCore, instantModel, llm, median, quick, registerTools, seedHistory, tick } from './lib.mjs'

const TURNS_PER_AGENT = 10

const middle = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

async function measure(history) {
  const ctx = bootCore()
  let lastRequest
  let started
  let toRequest = []
  instantModel(ctx, (request) => {
    lastRequest = request
    toRequest.push(performance.now() - started)
  })
  registerTools(ctx, 50)
  for (let i = 0; i < 20; i++) ctx.systemPrompt.section({ name: `bench:section-${i}`, order: i * 5, text: `Section ${i}. ${'Keep answers short and exact. '.repeat(6)}` })
  for (let i = 0; i < 5; i++) ctx.systemPrompt.context({ name: `bench:context-${i}`, order: i, text: `context ${i}: stable value` })
  await tick()
  // A fresh agent (same seed) every few turns keeps the history near H: each turn adds two messages.
  const seed = seedHistory(history)
  const turns = []
  let agent
  const turn = async (record) => {
    started = performance.now()
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
    if (record) turns.push(performance.now() - started)
    else toRequest.pop()
  }
  const round = async (record) => {
    agent = ctx.agentLoop.create({ provider: 'bench', model: 'instant', seed })
    await turn(false) // the agent's first request logs its header; steady state starts after it
    for (let i = 0; i < TURNS_PER_AGENT; i++) await turn(record)
    await agent.dispose()
  }
  // Warm-up rounds, then at least `minRounds` measured rounds and at least `budget` ms of them.
  const [warmRounds, minRounds, budget] = quick ? [2, 4, 200] : [4, 12, 1200]
  for (let i = 0; i < warmRounds; i++) await round(false)
  const begin = performance.now()
  for (let i = 0; i < minRounds || performance.now() - begin < budget; i++) await round(true)
  // `lastRequest` is the last request of the last round: H seeded messages plus that round's turns.
  const stringify = await median(`stringify H=${history}`, () => JSON.stringify(lastRequest))
  return { history, step: middle(toRequest), turn: middle(turns), stringify, messages: lastRequest.messages.length }
}

export async function stepOverhead() {
  const rows = []
  for (const h of [100, 1000, 10000]) rows.push(await measure(h))
  const base = rows[0].step
  const big = rows.at(-1)
  return {
    title: 'Per-step harness overhead (claim → frozen request)',
    columns: ['history H', 'messages in the last request', 'step / step(H=100)', 'step / JSON.stringify(request)', 'whole turn / JSON.stringify(request) (no bar)'],
    rows: rows.map((r) => [
      String(r.history),
      String(r.messages),
      (r.step / base).toFixed(2),
      (r.step / r.stringify).toFixed(3),
      (r.turn / r.stringify).toFixed(3),
    ]),
    bars: [
      { name: 'step(H=10,000) ≤ 2 × step(H=100)', value: big.step / base, limit: 2, ok: big.step / base <= 2 },
      { name: 'step(H=10,000) < 25% of JSON.stringify(request)', value: big.step / big.stringify, limit: 0.25, ok: big.step / big.stringify < 0.25 },
    ],
  }
}
