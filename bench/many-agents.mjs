// Many agents in one process: one agent's turn while 199 other agents sit idle in the same Context, against the same
// turn in an app where it is the only agent. The two apps are built alike and their turns are paired (alternating
// which goes first), so both see the same machine state; the median of the per-pair ratios.
import { benchApp, llm, pairedRatio, quick, seedHistory, stopwatch } from './lib.mjs'

const IDLE = 199
const HISTORY = 100

export async function manyAgents() {
  const seed = seedHistory(HISTORY)
  const options = { provider: 'bench', model: 'instant' }
  const alone = await benchApp()
  const crowded = await benchApp()
  const single = alone.agentLoop.create({ ...options, seed })
  const timed = crowded.agentLoop.create({ ...options, seed })
  for (let i = 0; i < IDLE; i++) crowded.agentLoop.create({ ...options, seed })
  const turn = (agent) => async () => {
    const read = stopwatch()
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
    return read()
  }
  const [warm, samples] = quick ? [10, 60] : [30, 200]
  await pairedRatio(turn(timed), turn(single), warm)
  const { ratio } = await pairedRatio(turn(timed), turn(single), samples)
  const live = crowded.agentLoop.list().length
  await alone.scope.dispose()
  await crowded.scope.dispose()
  return {
    title: `Many live agents in one Context (H = ${HISTORY}, median of ${samples} paired turns)`,
    columns: ['live agents in the Context', 'turn / turn with one live agent'],
    rows: [
      ['1', '1.00'],
      [String(live), ratio.toFixed(2)],
    ],
    bars: [{ name: `a turn with ${live} live agents ≤ 1.5 × a turn with one`, value: ratio, ok: ratio <= 1.5 }],
  }
}
