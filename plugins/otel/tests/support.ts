/**
 * Test support: an in-memory tracer provider, the agent-loop harness with the plugin loaded, and spans in a form
 * that compares by value (ids replaced by the index of the parent span, times in milliseconds).
 */
import { hrTimeToMilliseconds } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ForkScope } from 'cordis'
import { boot, say, type Harness } from '../../../packages/agent-loop/tests/harness.js'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import type { AnySessionEvent } from '@bridle/session'
import { OtelTracing, type OtelConfigInput } from '../src/index.js'

export { say, callTools, fail, user, tick, deferred, boot } from '../../../packages/agent-loop/tests/harness.js'

export interface Recorder {
  readonly provider: BasicTracerProvider
  readonly exporter: InMemorySpanExporter
  spans(): ReadableSpan[]
}

/** A provider whose finished spans stay in memory, in the order they ended. */
export function recorder(): Recorder {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { provider, exporter, spans: () => exporter.getFinishedSpans() }
}

/** The agent-loop harness (scripted `mock` model) with `@bridle/otel` loaded on a recorder's provider. */
export function tracedHarness(config: OtelConfigInput = {}): Harness & { recorder: Recorder; plugin: ForkScope } {
  const h = boot()
  const rec = recorder()
  const plugin = h.ctx.plugin(OtelTracing, { tracerProvider: rec.provider, ...config })
  return Object.assign(h, { recorder: rec, plugin })
}

/** A span as plain data: ids gone, the parent as the index of its span in the same list, times in ms. */
export interface PlainSpan {
  name: string
  kind: 'internal' | 'client' | 'other'
  parent: number | null
  start: number
  end: number
  attributes: Record<string, unknown>
  status: { code: 'unset' | 'ok' | 'error'; message?: string }
  scope: string
}

export function plain(spans: readonly ReadableSpan[]): PlainSpan[] {
  const index = new Map(spans.map((s, i) => [s.spanContext().spanId, i]))
  return spans.map((s) => {
    const parentId = s.parentSpanContext?.spanId
    const parent = parentId === undefined ? null : (index.get(parentId) ?? -1)
    const code = s.status.code === SpanStatusCode.ERROR ? 'error' : s.status.code === SpanStatusCode.OK ? 'ok' : 'unset'
    return {
      name: s.name,
      kind: s.kind === SpanKind.CLIENT ? 'client' : s.kind === SpanKind.INTERNAL ? 'internal' : 'other',
      parent,
      start: hrTimeToMilliseconds(s.startTime),
      end: hrTimeToMilliseconds(s.endTime),
      attributes: { ...s.attributes },
      status: s.status.message === undefined ? { code } : { code, message: s.status.message },
      scope: s.instrumentationScope.name,
    }
  })
}

/** Spans whose trace ids group them: every span of one turn shares its turn span's trace. */
export function traceIdsOf(spans: readonly ReadableSpan[]): string[] {
  return spans.map((s) => s.spanContext().traceId)
}

/**
 * A scripted answer that starts streaming, then waits for `release()` before it finishes as `say(text)` would:
 * `dispatched` resolves once the first chunk is out.
 */
export function heldAnswer(text: string) {
  let dispatched!: () => void
  let release!: () => void
  const out = new Promise<void>((resolve) => (dispatched = resolve))
  const gate = new Promise<void>((resolve) => (release = resolve))
  const responder = (request: GenerateOptions) => ({
    async *[Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
      const chunks = say(text)(request) as StreamChunk[]
      yield chunks[0]!
      dispatched()
      await gate
      yield* chunks.slice(1)
    },
  })
  return { responder, dispatched: out, release }
}

type Agent = ReturnType<Harness['agent']>

/** The first event of the agent's log that matches. */
export function eventOf(agent: Agent, type: string, match: (data: any) => boolean = () => true): AnySessionEvent {
  const found = agent.session.events.find((e) => e.type === type && match(e.data))
  if (found === undefined) throw new Error(`no ${type} event`)
  return found
}

/** Sends `text` and waits until the agent is idle. */
export async function turn(_h: Harness, agent: Agent, text: string): Promise<void> {
  agent.followup(createUserMessage(text))
  await agent.whenIdle()
}
