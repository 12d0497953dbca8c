// Per-step harness overhead, as DESIGN.md defines it: claim → frozen request, adapter excluded, with H history
// messages, 50 tools, 20 sections and 5 contexts. Each sample is one turn of one step through an adapter that answers
// at once; the clock runs from `followup()` (the inbox append the step claims) to the moment the adapter receives the
// frozen request, so it covers claim → assembly → runtime-context snapshot → pre-step → session appends →
// `deriveMessages()` → render → header → frozen request → digest → `llm/stream` dispatch. The rest of the turn (chunk
// and message appends, turn end) is timed too ("whole turn"). The whole scenario runs RUNS times, each run in a fresh
// app; the table gives min / median / max of each ratio over the runs, and the bars hold the median.
import { benchApp, llm, median, middle, quick, RUNS, seedHistory, spread } from './lib.mjs'

const TURNS_PER_AGENT = 10
const SIZES = [100, 1000, 10000]

async function measure(history) {
  let lastRequest
  let started
  const toRequest = []
  const ctx = await benchApp((request) => {
    lastRequest = request
    toRequest.push(performance.now() - started)
  })
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
  await ctx.scope.dispose()
  return { history, step: middle(toRequest), turn: middle(turns), stringify, messages: lastRequest.messages.length }
}

export async function stepOverhead() {
  const runs = []
  for (let run = 0; run < RUNS; run++) {
    const rows = []
    for (const h of SIZES) rows.push(await measure(h))
    runs.push(rows)
  }
  const column = (index, ratio) =>
    spread(
      runs.map((rows) => ratio(rows[index], rows[0])),
      3,
    )
  const flat = column(SIZES.length - 1, (r, base) => r.step / base.step)
  const big = column(SIZES.length - 1, (r) => r.step / r.stringify)
  const smallStep = column(0, (r) => r.step / r.stringify)
  const smallTurn = column(0, (r) => r.turn / r.stringify)
  return {
    title: `Per-step harness overhead (claim → frozen request), ${RUNS} run${RUNS > 1 ? 's' : ''}: min / median / max`,
    columns: [
      'history H',
      'messages in the last request',
      'step / step(H=100)',
      'step / JSON.stringify(request)',
      'whole turn / JSON.stringify(request)',
    ],
    rows: SIZES.map((h, i) => [
      String(h),
      String(runs[0][i].messages),
      column(i, (r, base) => r.step / base.step).text,
      column(i, (r) => r.step / r.stringify).text,
      column(i, (r) => r.turn / r.stringify).text,
    ]),
    bars: [
      { name: 'step(H=10,000) ≤ 2 × step(H=100) (median of runs)', value: flat.median, ok: flat.median <= 2 },
      {
        name: 'step(H=10,000) < 25% of JSON.stringify(request) (median of runs)',
        value: big.median,
        ok: big.median < 0.25,
      },
      {
        name: 'step(H=100) ≤ 3 × JSON.stringify(request) (median of runs)',
        value: smallStep.median,
        ok: smallStep.median <= 3,
      },
      {
        name: 'whole turn(H=100) ≤ 4 × JSON.stringify(request) (median of runs)',
        value: smallTurn.median,
        ok: smallTurn.median <= 4,
      },
    ],
  }
}
