// Memory: what a seeded 10,000-message agent keeps on the heap, whether message creation stalls once such a session
// is gone, and how much the heap grows per turn when turns run back to back without yielding to the event loop.
import { benchApp, fullGc, llm, quick, seedHistory, settledHeap, tick } from './lib.mjs'

const HISTORY = quick ? 2_000 : 10_000
const TURNS = 200
const CREATIONS = 100

export async function memory() {
  const ctx = await benchApp()
  const options = { provider: 'bench', model: 'instant' }
  // Warm every code path once, so the baseline heap already holds compiled code and lazily built tables.
  const warm = ctx.agentLoop.create({ ...options, seed: seedHistory(10) })
  warm.followup(llm.createUserMessage('warm up'))
  await warm.whenIdle()
  await warm.dispose()
  await tick()

  // 1. Retained heap: the seed belongs to the caller and stays alive throughout, so the difference is what the agent
  //    (session log, projections, digest chain, registries) keeps after its first turn.
  let seed = seedHistory(HISTORY)
  const messageBytes = seed.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event.data)), 0)
  const before = settledHeap()
  let agent = ctx.agentLoop.create({ ...options, seed })
  agent.followup(llm.createUserMessage('first question'))
  await agent.whenIdle()
  await tick()
  const retained = settledHeap() - before

  // 2. Back-to-back turns: only promise continuations between turns, never a macrotask, as in a test or a batch job.
  const start = settledHeap()
  for (let i = 0; i < TURNS; i++) {
    agent.followup(llm.createUserMessage(`question ${i}`))
    await agent.whenIdle()
  }
  const perTurn = (settledHeap() - start) / TURNS

  // 3. Dispose the large session, let it be collected, then time message creation (the worst call, not the median).
  await agent.dispose()
  agent = undefined
  seed = undefined
  await tick()
  fullGc()
  //    Each call's wall time and the process's CPU time across it: on a shared machine the OS can deschedule the
  //    process for tens of milliseconds inside any call, which is wall time the process did not spend. A stall of
  //    ours (a registry rehash, a collection on this thread) costs CPU time as well, so the bar takes the smaller of
  //    the two per call; the worst wall time is shown beside it.
  let worstWall = 0
  let worst = 0
  for (let i = 0; i < CREATIONS; i++) {
    const cpu = process.cpuUsage()
    const t = performance.now()
    llm.createUserMessage(`after dispose ${i}`)
    const wall = performance.now() - t
    const used = process.cpuUsage(cpu)
    worstWall = Math.max(worstWall, wall)
    worst = Math.max(worst, Math.min(wall, (used.user + used.system) / 1000))
  }
  await ctx.scope.dispose()

  const ratio = retained / messageBytes
  return {
    title: `Memory of a seeded ${HISTORY.toLocaleString('en')}-message agent`,
    columns: ['measure', 'value'],
    rows: [
      ['message JSON bytes of the seed', `${(messageBytes / 1e6).toFixed(2)} MB`],
      ['heap retained after its first turn / message JSON bytes', ratio.toFixed(2)],
      [`heap growth per turn over ${TURNS} back-to-back turns`, `${(perTurn / 1000).toFixed(1)} kB`],
      [
        `slowest of ${CREATIONS} createUserMessage calls after disposing it (min of wall and CPU time per call)`,
        `${worst.toFixed(2)} ms`,
      ],
      [
        `slowest of those calls in wall time alone (includes descheduling by other processes; no bar)`,
        `${worstWall.toFixed(2)} ms`,
      ],
    ],
    bars: [
      { name: 'retained heap ≤ 2 × message JSON bytes', value: ratio, ok: ratio <= 2 },
      { name: 'heap growth per back-to-back turn ≤ 10 kB', value: perTurn / 1000, ok: perTurn <= 10_000 },
      { name: 'no createUserMessage over 5 ms after a large session is disposed', value: worst, ok: worst <= 5 },
    ],
  }
}
