// OpenTelemetry overhead (issue 33): one agent turn at H = 100 (the step benchmark's app: 50 tools, 20 sections, 5
// contexts, an adapter that answers at once) in an app with `@bridle/otel` loaded on an in-memory exporter, against
// the same turn in an app without it. The two apps are built alike and their turns alternate (A, B, A, B), each pair
// gives one ratio B / A, and the bar holds the median of those paired ratios, so a slow moment of the machine falls on
// both sides of a pair. The plugin does everything it does live: folds every event (the request replay included),
// starts and ends the SDK spans; the SDK's batch span processor (what a deployment runs) queues them for the exporter,
// and the queue is flushed into it between pairs, outside the clock, as the processor's timer would.
import { createRequire } from 'node:module'
import { benchApp, llm, middle, quick, seedHistory } from './lib.mjs'

const HISTORY = 100
const TURNS_PER_AGENT = 10

const otel = await import(new URL('../plugins/otel/dist/index.js', import.meta.url).href)
// the SDK as the plugin's package resolves it (the bench folder has no dependencies of its own)
const fromPlugin = createRequire(new URL('../plugins/otel/package.json', import.meta.url))
const sdk = fromPlugin('@opentelemetry/sdk-trace-base')

export async function otelOverhead() {
  const seed = seedHistory(HISTORY)
  const plain = await benchApp()
  const traced = await benchApp()
  const exporter = new sdk.InMemorySpanExporter()
  const processor = new sdk.BatchSpanProcessor(exporter, { maxQueueSize: 100_000, scheduledDelayMillis: 3_600_000 })
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [processor] })
  traced.plugin(otel.OtelTracing, { tracerProvider: provider })
  await new Promise((resolve) => setTimeout(resolve, 0))

  const options = { provider: 'bench', model: 'instant', seed }
  const sides = [
    { ctx: plain, agent: undefined, turns: 0 },
    { ctx: traced, agent: undefined, turns: 0 },
  ]
  // A fresh agent (same seed) every few turns keeps the history near H: each turn adds two messages. The first turn
  // of an agent logs its header (and, traced, catches the plugin up on the seed) and is not timed, on either side.
  const turn = async (side) => {
    if (side.agent === undefined || side.turns === TURNS_PER_AGENT) {
      await side.agent?.dispose()
      side.agent = side.ctx.agentLoop.create(options)
      side.turns = 0
      side.agent.followup(llm.createUserMessage('first question'))
      await side.agent.whenIdle()
    }
    side.turns++
    const started = performance.now()
    side.agent.followup(llm.createUserMessage('next question'))
    await side.agent.whenIdle()
    return performance.now() - started
  }

  const [warm, samples] = quick ? [40, 200] : [100, 800]
  const ratios = []
  const times = [[], []]
  let spans = 0
  for (let i = 0; i < warm + samples; i++) {
    const a = await turn(sides[0])
    const b = await turn(sides[1])
    if (i >= warm) {
      ratios.push(b / a)
      times[0].push(a)
      times[1].push(b)
    }
    if (i % 50 === 49) {
      await provider.forceFlush()
      spans += exporter.getFinishedSpans().length
      exporter.reset()
    }
  }
  await provider.forceFlush()
  spans += exporter.getFinishedSpans().length
  await sides[0].agent.dispose()
  await sides[1].agent.dispose()
  await plain.scope.dispose()
  await traced.scope.dispose()
  const ratio = middle(ratios)
  const sorted = [...ratios].sort((x, y) => x - y)
  const quartiles = `${sorted[Math.floor(sorted.length / 4)].toFixed(2)} / ${sorted[Math.floor((3 * sorted.length) / 4)].toFixed(2)}`
  return {
    title: `OpenTelemetry spans (H = ${HISTORY}, ${samples} paired turns, A/B alternating)`,
    columns: ['app', 'turn (median of its side)', 'median of paired ratios', 'paired ratios, 1st / 3rd quartile'],
    rows: [
      ['without @bridle/otel', '1.00', '1.00', '—'],
      [
        '@bridle/otel, in-memory exporter',
        (middle(times[1]) / middle(times[0])).toFixed(2),
        ratio.toFixed(3),
        quartiles,
      ],
    ],
    bars: [
      {
        name: `a turn with @bridle/otel (${spans} spans exported) ≤ 1.15 × a turn without it, median of paired ratios`,
        value: ratio,
        ok: ratio <= 1.15 && spans > 0,
      },
    ],
  }
}
