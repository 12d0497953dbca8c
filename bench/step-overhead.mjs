// Per-step harness overhead, as DESIGN.md defines it: claim → frozen request, adapter excluded, with H history
// messages, 50 tools, 20 sections and 5 contexts. Each sample is one turn of one step through an adapter that answers
// at once; the clock runs from `followup()` (the inbox append the step claims) to the moment the adapter receives the
// frozen request, so it covers claim → assembly → runtime-context snapshot → pre-step → session appends →
// `deriveMessages()` → render → header → frozen request → digest → `llm/stream` dispatch. The rest of the turn (chunk
// and message appends, turn end) is timed too ("whole turn").
//
// Every ratio is paired sample by sample: each turn's step is divided by one `JSON.stringify` of that turn's own
// request, timed right after it (the fastest of three), and `step(H) / step(H=100)` divides two steps taken moments
// apart (the apps of the three sizes take turns, and nothing else runs between their turns: no stringify). A burst of
// load then falls on both sides of a ratio alike; the table gives the median of the paired ratios. The whole scenario
// runs STEP_RUNS times, each in fresh apps; the table gives min / median / max over the runs, and the bars hold the
// median.
import { benchApp, llm, middle, quick, seedHistory, spread, stopwatch, stringifyTime } from './lib.mjs'

/**
 * Runs, in --quick too (about 6 s each): whole runs differ more than the samples inside one (step(H=10,000) ÷
 * step(H=100) read 1.60, 1.61 and 1.99 in one process), so the median of 3 runs is the first to cross a bar.
 */
const STEP_RUNS = 5

const TURNS_PER_AGENT = 10
const SIZES = [100, 1000, 10000]

/** One app at history size `history`; `next()` runs one turn and returns its step, turn and stringify times. */
async function runner(history) {
  const probe = { read: () => 0, toRequest: 0, request: undefined }
  const ctx = await benchApp((request) => {
    probe.toRequest = probe.read()
    probe.request = request
  })
  // A fresh agent (same seed) every few turns keeps the history near H: each turn adds two messages.
  const seed = seedHistory(history)
  let agent
  let turns = TURNS_PER_AGENT
  const turn = async () => {
    probe.read = stopwatch()
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
    return probe.read()
  }
  return {
    history,
    ctx,
    /** One turn; with `stringify`, also the request's `JSON.stringify` time (the step ÷ stringify phase only). */
    async next(stringify) {
      if (turns === TURNS_PER_AGENT) {
        await agent?.dispose()
        agent = ctx.agentLoop.create({ provider: 'bench', model: 'instant', seed })
        await turn() // the agent's first request logs its header; steady state starts after it
        turns = 0
      }
      turns++
      const whole = await turn()
      const step = probe.toRequest
      const messages = probe.request.messages.length
      return { step, turn: whole, stringify: stringify ? stringifyTime(probe.request) : undefined, messages }
    },
  }
}

/** `count` samples of each runner after `warm` unrecorded ones, one turn of each in turn (the order alternating). */
async function interleaved(runners, warm, count, stringify) {
  const results = runners.map(() => [])
  for (let i = 0; i < warm + count; i++) {
    const order = i % 2 === 0 ? [...runners.keys()] : [...runners.keys()].reverse()
    for (const k of order) {
      const sample = await runners[k].next(stringify)
      if (i >= warm) results[k].push(sample)
    }
  }
  return results
}

/**
 * One run, in two phases. Step ÷ stringify: each history size alone in a fresh app (its heap holds one app, as a
 * process serving one agent does), each turn's step divided by its own request's stringify. Step(H) ÷ step(H=100): the
 * three apps side by side, one turn of each in turn, each turn divided by the H = 100 turn next to it.
 */
async function measure() {
  const [warm, count] = quick ? [30, 80] : [40, 150]
  const alone = []
  for (const h of SIZES) {
    const r = await runner(h)
    alone.push((await interleaved([r], warm, count, true))[0])
    await r.ctx.scope.dispose()
  }
  const runners = []
  for (const h of SIZES) runners.push(await runner(h))
  // No stringify here: three copies of a 10,000-message request (megabytes of garbage) between turns made the next
  // turn pay their collection, and the H = 10,000 app's own turn came next half the time (1.3 where it is 1.1).
  const side = await interleaved(runners, warm, count, false)
  for (const r of runners) await r.ctx.scope.dispose()
  return SIZES.map((history, k) => ({
    history,
    messages: alone[k].at(-1).messages,
    flat: middle(side[k].map((x, i) => x.step / side[0][i].step)),
    step: middle(alone[k].map((x) => x.step / x.stringify)),
    turn: middle(alone[k].map((x) => x.turn / x.stringify)),
  }))
}

export async function stepOverhead() {
  const runs = []
  for (let run = 0; run < STEP_RUNS; run++) runs.push(await measure())
  const column = (index, key) =>
    spread(
      runs.map((rows) => rows[index][key]),
      3,
    )
  const last = SIZES.length - 1
  const flat = column(last, 'flat')
  const big = column(last, 'step')
  const smallStep = column(0, 'step')
  const smallTurn = column(0, 'turn')
  return {
    title: `Per-step harness overhead (claim → frozen request), ${STEP_RUNS} runs of paired samples: min / median / max`,
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
      column(i, 'flat').text,
      column(i, 'step').text,
      column(i, 'turn').text,
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
