// OpenTelemetry overhead (issue 33): one agent turn at H = 100 (the step benchmark's app: 50 tools, 20 sections, 5
// contexts, an adapter that answers at once) in an app with `@bridle/otel` loaded on an in-memory exporter, against
// the same turn in an app without it. The two apps are built alike and their turns alternate (A, B, A, B), each pair
// gives one ratio B / A, and the bar holds the median of those paired ratios, so a slow moment of the machine falls on
// both sides of a pair. The plugin does everything it does live: folds every event (the request replay included),
// starts and ends the SDK spans; the SDK's batch span processor (what a deployment runs) queues them for the exporter,
// and the queue is flushed into it between pairs, outside the clock, as the processor's timer would.
import { createRequire } from 'node:module'
import { benchApp, llm, middle, quick, seedHistory } from './lib.mjs'

// A third app, for scale: no fold at all, only a session/event listener that makes the same two SDK spans per turn
// with as many attributes (4 + 8 on the turn, 11 + 9 on the request): the cost of the official SDK's spans alone.

const HISTORY = 100
const TURNS_PER_AGENT = 10

const otel = await import(new URL('../plugins/otel/dist/index.js', import.meta.url).href)
// the SDK as the plugin's package resolves it (the bench folder has no dependencies of its own)
const fromPlugin = createRequire(new URL('../plugins/otel/package.json', import.meta.url))
const sdk = fromPlugin('@opentelemetry/sdk-trace-base')
const api = fromPlugin('@opentelemetry/api')
const scope = await import(new URL('../packages/scope/dist/index.js', import.meta.url).href)

const batchProvider = (exporter) =>
  new sdk.BasicTracerProvider({
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { maxQueueSize: 100_000, scheduledDelayMillis: 3_600_000 })],
  })

/** The SDK-only listener: two spans a turn, their attributes made the way the plugin makes them (fresh objects). */
function sdkSpansOnly(ctx, provider) {
  const tracer = provider.getTracer('sdk-only')
  const attributes = (n, prefix, event) => {
    const a = {}
    for (let i = 0; i < n; i++) a[`${prefix}.${i}`] = i % 2 ? `${event.type} ${i}` : event.seq + i
    return a
  }
  let turn
  let chat
  scope.onUntraced(ctx, 'session/event', (_session, event) => {
    if (event.type === 'turn/start') {
      turn = tracer.startSpan('invoke_agent', {
        startTime: event.time,
        attributes: attributes(4, 't', event),
        root: true,
      })
    } else if (event.type === 'request/digest') {
      const parent = api.trace.setSpan(api.ROOT_CONTEXT, turn)
      chat = tracer.startSpan(
        'chat',
        { kind: api.SpanKind.CLIENT, startTime: event.time, attributes: attributes(11, 'c', event) },
        parent,
      )
    } else if (event.type === 'assistant/message') {
      chat.setAttributes(attributes(9, 'r', event))
      chat.end(event.time)
    } else if (event.type === 'turn/end') {
      turn.setAttributes(attributes(8, 'e', event))
      turn.end(event.time)
    }
  })
}

export async function otelOverhead() {
  const seed = seedHistory(HISTORY)
  const plain = await benchApp()
  const traced = await benchApp()
  const floor = await benchApp()
  const exporter = new sdk.InMemorySpanExporter()
  const provider = batchProvider(exporter)
  traced.plugin(otel.OtelTracing, { tracerProvider: provider })
  const floorExporter = new sdk.InMemorySpanExporter()
  const floorProvider = batchProvider(floorExporter)
  sdkSpansOnly(floor, floorProvider)
  await new Promise((resolve) => setTimeout(resolve, 0))

  const options = { provider: 'bench', model: 'instant', seed }
  const sides = [
    { ctx: plain, agent: undefined, turns: 0 },
    { ctx: traced, agent: undefined, turns: 0 },
    { ctx: floor, agent: undefined, turns: 0 },
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

  // a long warm-up: the plugin's once-a-turn code must run often enough for V8 to optimize it, as it has in any
  // process that has served a few thousand turns (both apps warm alike)
  const [warm, samples] = quick ? [3000, 300] : [3000, 800]
  const ratios = []
  const floorRatios = []
  const times = [[], [], []]
  let spans = 0
  const drain = async () => {
    await provider.forceFlush()
    await floorProvider.forceFlush()
    spans += exporter.getFinishedSpans().length
    exporter.reset()
    floorExporter.reset()
  }
  for (let i = 0; i < warm + samples; i++) {
    const a = await turn(sides[0])
    const b = await turn(sides[1])
    const c = await turn(sides[2])
    if (i >= warm) {
      ratios.push(b / a)
      floorRatios.push(c / a)
      times[0].push(a)
      times[1].push(b)
      times[2].push(c)
    }
    if (i % 50 === 49) await drain()
  }
  await drain()
  for (const side of sides) await side.agent.dispose()
  for (const ctx of [plain, traced, floor]) await ctx.scope.dispose()
  const ratio = middle(ratios)
  const quartiles = (values) => {
    const sorted = [...values].sort((x, y) => x - y)
    return `${sorted[Math.floor(sorted.length / 4)].toFixed(2)} / ${sorted[Math.floor((3 * sorted.length) / 4)].toFixed(2)}`
  }
  return {
    title: `OpenTelemetry spans (H = ${HISTORY}, ${samples} turns of each app, alternating; ratios to the app without tracing)`,
    columns: ['app', 'turn (median of its side)', 'median of paired ratios', 'paired ratios, 1st / 3rd quartile'],
    rows: [
      ['without tracing', '1.00', '1.00', '—'],
      [
        '@bridle/otel, in-memory exporter',
        (middle(times[1]) / middle(times[0])).toFixed(2),
        ratio.toFixed(3),
        quartiles(ratios),
      ],
      [
        'for scale: the same SDK spans alone, no fold',
        (middle(times[2]) / middle(times[0])).toFixed(2),
        middle(floorRatios).toFixed(3),
        quartiles(floorRatios),
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
