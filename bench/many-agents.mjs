// Many agents in one process: one agent's turn while 199 other agents sit idle in the same Context, against the same
// turn in an app where it is the only agent. The two apps are built alike and their turns alternate, so both see the
// same machine state; medians.
import { benchApp, llm, middle, quick, seedHistory } from './lib.mjs'

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
  const turn = async (agent) => {
    const started = performance.now()
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
    return performance.now() - started
  }
  const [warm, samples] = quick ? [10, 40] : [30, 200]
  const one = []
  const many = []
  for (let i = 0; i < warm + samples; i++) {
    const a = await turn(single)
    const b = await turn(timed)
    if (i >= warm) one.push(a), many.push(b)
  }
  const live = crowded.agentLoop.list().length
  await alone.scope.dispose()
  await crowded.scope.dispose()
  const ratio = middle(many) / middle(one)
  return {
    title: `Many live agents in one Context (H = ${HISTORY}, medians of ${samples} alternating turns)`,
    columns: ['live agents in the Context', 'turn / turn with one live agent'],
    rows: [
      ['1', '1.00'],
      [String(live), ratio.toFixed(2)],
    ],
    bars: [{ name: `a turn with ${live} live agents ≤ 1.5 × a turn with one`, value: ratio, ok: ratio <= 1.5 }],
  }
}
