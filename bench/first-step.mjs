// The first step of a freshly resumed or seeded agent at H = 10,000: claim → frozen request of its first turn, beside
// one JSON.stringify of that request. The log it starts from is a recorded one: an agent seeded with H - 1 messages
// answered one prompt, so the log ends in a `request/digest` over H messages. A resumed agent reads that log back through
// session-jsonl; a seeded agent gets its events as `create({seed})`. Both must not rehash the digested history.
// A seed of bare messages with no `request/digest` is shown beside them (no bar): nothing recorded to continue from,
// so its first request digests every message.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchApp, llm, middle, quick, seedHistory, stopwatch, stringifyTime } from './lib.mjs'

// the same size in --quick: the first step has costs that do not grow with H, so a smaller H would give another ratio
const HISTORY = 10_000
const SAMPLES = quick ? 5 : 9

/**
 * Times the first step of agents made by `make`, `samples` times, each divided by one `JSON.stringify` of its own
 * request timed right after it (paired); the median ratio and the last first request.
 */
async function firstSteps(_ctx, probe, make, samples) {
  const ratios = []
  let request
  for (let i = 0; i < samples; i++) {
    const agent = await make()
    probe.read = stopwatch()
    agent.followup(llm.createUserMessage('next question'))
    await agent.whenIdle()
    request = probe.request
    ratios.push(probe.toRequest / stringifyTime(request))
    await agent.dispose()
  }
  return { ratio: middle(ratios), request }
}

function probeApp(options) {
  const probe = { read: () => 0, toRequest: 0, request: undefined }
  const ready = benchApp((request) => {
    probe.toRequest = probe.read()
    probe.request = request
  }, options)
  return { probe, ready }
}

/** Writes the recorded log through `app` (H - 1 seeded messages, one answered prompt); its events and agent id. */
async function recordLog(app) {
  const writer = app.agentLoop.create({ provider: 'bench', model: 'instant', seed: seedHistory(HISTORY - 1) })
  writer.followup(llm.createUserMessage('first question'))
  await writer.whenIdle()
  const recorded = writer.session.events
  await app.sessions.flush(writer.session)
  await writer.dispose()
  return { id: writer.id, recorded }
}

export async function firstStep() {
  const roots = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'bridle-bench-first-step-')))
  // Two durable apps: one with session-jsonl's durability checkpoints off, one with them on. With them on, the
  // `agent/pre-step` checkpoint flushes the step's first records (open, write, fsync) before the step is decided: disk
  // latency that does not depend on H and that the step benchmark, which runs without persistence, leaves out too.
  const quiet = probeApp({ persistence: { root: roots[0], checkpoints: false } })
  const quietApp = await quiet.ready
  const durable = probeApp({ persistence: { root: roots[1] } })
  const durableApp = await durable.ready
  const memory = probeApp()
  const seededApp = await memory.ready

  const quietLog = await recordLog(quietApp)
  const durableLog = await recordLog(durableApp)

  const options = { provider: 'bench', model: 'instant' }
  const resumed = await firstSteps(
    quietApp,
    quiet.probe,
    () => quietApp.agentLoop.resume(quietLog.id, options),
    SAMPLES,
  )
  const checkpointed = await firstSteps(
    durableApp,
    durable.probe,
    () => durableApp.agentLoop.resume(durableLog.id, options),
    SAMPLES,
  )
  const seeded = await firstSteps(
    seededApp,
    memory.probe,
    () => seededApp.agentLoop.create({ ...options, seed: quietLog.recorded }),
    SAMPLES,
  )
  const bare = seedHistory(HISTORY)
  const undigested = await firstSteps(
    seededApp,
    memory.probe,
    () => seededApp.agentLoop.create({ ...options, seed: bare }),
    quick ? 2 : 3,
  )

  const rows = []
  for (const [label, r, bar] of [
    ['resumed from session-jsonl (checkpoints off)', resumed, true],
    ['seeded with the recorded events', seeded, true],
    ['resumed from session-jsonl, checkpoint flush + fsync included (no bar)', checkpointed, false],
    ['seeded with bare messages, no request/digest (no bar)', undigested, false],
  ]) {
    rows.push({ label, bar, messages: r.request.messages.length, ratio: r.ratio })
  }
  await quietApp.scope.dispose()
  await durableApp.scope.dispose()
  await seededApp.scope.dispose()
  for (const root of roots) rmSync(root, { recursive: true, force: true })
  return {
    title: `First step of a fresh agent at H = ${HISTORY.toLocaleString('en')} (claim → frozen request ÷ its own request's stringify, median of ${SAMPLES} paired samples)`,
    columns: ['agent', 'messages in its first request', 'first step / JSON.stringify(request)'],
    rows: rows.map((r) => [r.label, String(r.messages), r.ratio.toFixed(3)]),
    bars: rows
      .filter((r) => r.bar)
      .map((r) => ({ name: `first step ${r.label} ≤ 1 × JSON.stringify(request)`, value: r.ratio, ok: r.ratio <= 1 })),
  }
}
