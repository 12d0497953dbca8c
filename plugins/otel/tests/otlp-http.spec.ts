/**
 * End to end over OTLP/HTTP: the live plugin with a provider built from the standard environment variables, and a
 * stored log sent with `sendOtlp`, both to a loopback receiver that decodes the OTLP/JSON payload as a collector
 * would. The two deliveries of one session carry the same spans apart from ids.
 */
import type { AnySessionEvent } from '@bridle/session'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { OtelTracing, otlpJson, sendOtlp, sessionLogSpans, SPANS_PER_REQUEST, tracesUrl } from '../src/index.js'
import { decodeOtlpJson, startReceiver, withoutIds, type Receiver } from './otlp-receiver.js'
import { boot, callTools, say, tick, user } from './support.js'

let receiver: Receiver
beforeEach(async () => {
  receiver = await startReceiver()
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await receiver.close()
})

describe('OTLP/HTTP to a loopback receiver', () => {
  it('live: a provider built from OTEL_* variables delivers the spans, flushed when the plugin unloads', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url)
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'x-team=agents')
    vi.stubEnv('OTEL_SERVICE_NAME', 'otel-e2e')
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'otlp')
    const h = boot()
    h.ctx.tools.register({ name: 'look', description: 'looks', parameters: { type: 'object' }, execute: () => 'seen' })
    let instance!: OtelTracing
    // a subclass only to hand the test the instance cordis constructs
    class Captured extends OtelTracing {
      constructor(...args: ConstructorParameters<typeof OtelTracing>) {
        super(...args)
        instance = this
      }
    }
    const plugin = h.ctx.plugin(Captured)
    await tick()
    const agent = h.agent({ sessionId: 'e2e' })
    h.script.push(callTools({ id: 'k1', name: 'look' }), say('saw it', 12))
    agent.followup(user('look around'))
    await agent.whenIdle()
    h.script.push(say('bye'))
    agent.followup(user('thanks'))
    await agent.whenIdle()
    await plugin.dispose()
    await instance.stopped

    expect(receiver.requests.length).toBeGreaterThan(0)
    for (const request of receiver.requests) {
      expect(request.method).toBe('POST')
      expect(request.path).toBe('/v1/traces')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['x-team']).toBe('agents')
    }
    const live = receiver.requests.flatMap((r) => decodeOtlpJson(r.body))
    expect(live.map((s) => [s.name, s.kind])).toEqual([
      ['chat m1', 'client'],
      ['execute_tool look', 'internal'],
      ['chat m1', 'client'],
      ['invoke_agent', 'internal'],
      ['chat m1', 'client'],
      ['invoke_agent', 'internal'],
    ])
    expect(live[0]!.resource['service.name']).toBe('otel-e2e')
    expect(live[0]!.scope.name).toBe('@bridle/otel')
    // parents by id, and one trace per turn
    expect(live.slice(0, 3).every((s) => s.parentSpanId === live[3]!.spanId && s.traceId === live[3]!.traceId)).toBe(
      true,
    )
    expect(live[3]!.parentSpanId).toBeUndefined()
    expect(live[4]!.parentSpanId).toBe(live[5]!.spanId)
    expect(live[5]!.traceId).not.toBe(live[3]!.traceId)
    expect(live[2]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.conversation.id': 'e2e',
      'gen_ai.usage.input_tokens': 22,
      'gen_ai.usage.cache_read.input_tokens': 12,
      'gen_ai.response.finish_reasons': ['stop'],
      'bridle.request.sections': ['harness:identity'],
      'bridle.cache.break': 'none',
    })
    const turnStart = agent.session.events.find((e) => e.type === 'turn/start')!
    expect(live[3]!.start).toBe(turnStart.time)

    // the stored log (here: the live session's events) sent after the fact: the same spans
    const spans = await sessionLogSpans('e2e', agent.session.events)
    const before = receiver.requests.length
    await sendOtlp(spans, tracesUrl(receiver.url))
    const exported = receiver.requests.slice(before).flatMap((r) => decodeOtlpJson(r.body))
    expect(withoutIds(exported)).toEqual(withoutIds(live))
    // and the --json form is the same request body
    expect(withoutIds(decodeOtlpJson(Buffer.from(await otlpJson(spans)).toString('utf8')))).toEqual(withoutIds(live))
  })

  it('sends a long log in requests of SPANS_PER_REQUEST spans', async () => {
    const turns = SPANS_PER_REQUEST + 10
    const events: AnySessionEvent[] = []
    for (let turn = 1; turn <= turns; turn++) {
      events.push({ type: 'turn/start', seq: events.length, time: 1_000 * turn, data: { turn } } as AnySessionEvent)
      events.push({
        type: 'turn/end',
        seq: events.length,
        time: 1_000 * turn + 5,
        data: { turn, reason: { kind: 'blocked' } },
      } as AnySessionEvent)
    }
    const spans = await sessionLogSpans('long', events)
    await sendOtlp(spans, tracesUrl(receiver.url))
    expect(receiver.requests.map((r) => decodeOtlpJson(r.body).length)).toEqual([SPANS_PER_REQUEST, 10])
    const decoded = receiver.requests.flatMap((r) => decodeOtlpJson(r.body))
    expect(decoded.at(-1)).toMatchObject({ name: 'invoke_agent', start: 1_000 * turns, end: 1_000 * turns + 5 })
  })

  it('a receiver that refuses: sendOtlp rejects with its answer', async () => {
    receiver.status = 400
    const spans = await sessionLogSpans('refused', [
      { type: 'turn/start', seq: 0, time: 10, data: { turn: 1 } } as AnySessionEvent,
    ])
    await expect(sendOtlp(spans, tracesUrl(receiver.url))).rejects.toThrow()
    expect(receiver.requests).toHaveLength(1)
    // the open turn ended where the log ends
    expect(decodeOtlpJson(receiver.requests[0]!.body)[0]!.attributes['bridle.unfinished']).toBe('log-end')
  })
})
