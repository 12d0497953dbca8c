// Assembly cost against the number of tools: it should grow linearly (cost per tool roughly constant).
import { bootCore, median, registerTools, tick } from './lib.mjs'

export async function assembly() {
  const rows = []
  for (const count of [10, 100, 1000]) {
    const ctx = bootCore()
    registerTools(ctx, count)
    await tick()
    const ms = await median(`assemble ${count} tools`, () => ctx.systemPrompt.assemble({}))
    rows.push({ count, ms })
  }
  const perTool = rows.map((r) => r.ms / r.count)
  const growth = perTool.at(-1) / perTool[1]
  return {
    title: 'Assembly against tool count',
    columns: ['tools', 'time / time(10 tools)', 'per-tool cost / per-tool cost(100)'],
    rows: rows.map((r, i) => [String(r.count), (r.ms / rows[0].ms).toFixed(2), (perTool[i] / perTool[1]).toFixed(2)]),
    bars: [
      { name: 'linear: per-tool cost at 1,000 ≤ 2 × per-tool cost at 100', value: growth, limit: 2, ok: growth <= 2 },
    ],
  }
}
