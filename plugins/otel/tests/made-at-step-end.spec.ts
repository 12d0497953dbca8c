/**
 * When the live plugin hands spans to the SDK: a session's events are folded a step at a time, and each span is made
 * when it ends — complete, with the log's start time — so a processor sees a step's spans once that step ended, the
 * turn's span made with its first child. A span is made with the attributes the conventions ask for at creation
 * (a sampler sees them) and gets the others before it ends.
 */
import type { Context } from '@opentelemetry/api'
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { OtelTracing } from '../src/index.js'
import { boot, callTools, eventOf, heldAnswer, tick, user } from './support.js'

/** A processor that notes each span it is given as it starts and ends, with the attributes it has then. */
function notingProcessor() {
  const notes: { what: 'start' | 'end'; name: string; attributes: Record<string, unknown> }[] = []
  const processor: SpanProcessor = {
    onStart: (span: Span, _context: Context) =>
      notes.push({ what: 'start', name: span.name, attributes: { ...span.attributes } }),
    onEnd: (span: ReadableSpan) => notes.push({ what: 'end', name: span.name, attributes: { ...span.attributes } }),
    forceFlush: async () => {},
    shutdown: async () => {},
  }
  return { notes, processor }
}

describe('spans are made when their step ends', () => {
  it("a step's spans reach the processor once the step ended; the turn's span starts with its first child", async () => {
    const h = boot()
    const { notes, processor } = notingProcessor()
    h.ctx.plugin(OtelTracing, { tracerProvider: new BasicTracerProvider({ spanProcessors: [processor] }) })
    h.ctx.tools.register({ name: 'look', description: 'looks', parameters: { type: 'object' }, execute: () => 'ok' })
    await tick()
    const agent = h.agent({ sessionId: 's-steps' })
    const held = heldAnswer('done')
    h.script.push(callTools({ id: 'c1', name: 'look' }), held.responder)
    agent.followup(user('look around'))
    await held.dispatched

    // step 1 ended: its model call and tool call are made and ended; the turn's span is made, still open
    expect(notes.map((n) => `${n.what} ${n.name}`)).toEqual([
      'start invoke_agent',
      'start chat m1',
      'end chat m1',
      'start execute_tool look',
      'end execute_tool look',
    ])
    // made with the attributes a sampler may read, ended with all of them
    expect(notes[1]!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'm1',
    })
    expect(notes[2]!.attributes['bridle.step']).toBe(1)
    expect(notes[2]!.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls'])

    held.release()
    await agent.whenIdle()
    expect(notes.slice(5).map((n) => `${n.what} ${n.name}`)).toEqual([
      'start chat m1',
      'end chat m1',
      'end invoke_agent',
    ])
    expect(eventOf(agent, 'turn/end').data).toMatchObject({ reason: { kind: 'completed' } })
  })
})
