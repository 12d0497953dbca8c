// Per-step harness overhead: claim → assemble → snapshot → pre-step → session → derive → render → header →
// frozen request, with H history messages, 50 tools, 20 sections and 5 contexts. The adapter answers at once,
// so a turn is one step of harness work plus a constant tail (chunk and message appends, turn end).
import { bootCore, instantModel, llm, median, quick, registerTools, seedHistory, tick } from './lib.mjs'

async function measure(history) {
  const ctx = bootCore()
  let lastRequest
  instantModel(ctx, (request) => (lastRequest = request))
  registerTools(ctx, 50)
  for (let i = 0; i < 20; i++) ctx.systemPrompt.section({ name: `bench:section-${i}`, order: i * 5, text: `Section ${i}. ${'Keep answers short and exact. '.repeat(6)}` })
  for (let i = 0; i < 5; i++) ctx.systemPrompt.context({ name: `bench:context-${i}`, order: i, text: `context ${i}: stable value` })
  await tick()
  const agent = ctx.agentLoop.create({ provider: 'bench', model: 'instant', seed: seedHistory(history) })
  const turn = async () => {
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
  }
  await turn()
  const step = await median(`step H=${history}`, turn)
  const stringify = await median(`stringify H=${history}`, () => JSON.stringify(lastRequest))
  await agent.dispose()
  return { history, step, stringify, messages: lastRequest.messages.length }
}

export async function stepOverhead() {
  const sizes = quick ? [100, 1000, 10000] : [100, 1000, 10000]
  const rows = []
  for (const h of sizes) rows.push(await measure(h))
  const base = rows[0].step
  const big = rows.at(-1)
  return {
    title: 'Per-step harness overhead',
    columns: ['history H', 'step / step(H=100)', 'step / JSON.stringify(request)'],
    rows: rows.map((r) => [String(r.history), (r.step / base).toFixed(2), (r.step / r.stringify).toFixed(3)]),
    bars: [
      { name: 'step(H=10,000) ≤ 2 × step(H=100)', value: big.step / base, limit: 2, ok: big.step / base <= 2 },
      { name: 'step(H=10,000) < 25% of JSON.stringify(request)', value: big.step / big.stringify, limit: 0.25, ok: big.step / big.stringify < 0.25 },
    ],
  }
}
