/**
 * The fold on hand-made logs, through a sink that records what it is told: the order spans open and close in, and
 * the edges no agent run reaches — a log that ends inside a turn, a turn that starts before the last one ended, a
 * tool result nobody called for, a log that is caught up on without a sink.
 */
import type { AnySessionEvent } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { SessionSpanFold, type SpanRecord, type SpanSink } from '../src/index.js'

/** A sink that writes one line per call: `open <name>` or `close <name> @<end> [<unfinished>]`. */
function lines(): SpanSink & { readonly seen: string[] } {
  const seen: string[] = []
  return {
    seen,
    open: (r: SpanRecord) => void seen.push(`open ${r.name}${r.parent ? ` < ${r.parent.name}` : ''} @${r.startTime}`),
    close: (r: SpanRecord) => {
      const unfinished = r.attributes['bridle.unfinished']
      seen.push(`close ${r.name} @${r.endTime}${unfinished ? ` ${unfinished}` : ''}`)
    },
  }
}

/** Events with seqs from 0 and times 10, 20, 30, … */
function log(...events: [type: string, data: unknown][]): AnySessionEvent[] {
  return events.map(([type, data], seq) => ({ type, seq, time: 10 * (seq + 1), data }) as AnySessionEvent)
}

const fold = () => new SessionSpanFold({ sessionId: 's', redaction: { secrets: [] }, content: false })

describe('SessionSpanFold', () => {
  it('a log that ends inside a turn: what is open ends at the last event, marked', () => {
    const f = fold()
    const sink = lines()
    const events = log(
      ['turn/start', { turn: 1 }],
      ['step/start', { turn: 1, step: 1 }],
      ['tool/call', { turn: 1, step: 1, callId: 'c1', name: 'look', arguments: '{}' }],
    )
    for (const e of events) f.push(e, sink)
    f.finish('log-end', sink)
    expect(sink.seen).toEqual([
      'open invoke_agent @10',
      'open execute_tool look < invoke_agent @30',
      'close execute_tool look @30 log-end',
      'close invoke_agent @30 log-end',
    ])
    // finishing twice closes nothing twice
    f.finish('log-end', sink)
    expect(sink.seen).toHaveLength(4)
  })

  it('a turn that starts while another is open supersedes it; a result without its call opens nothing', () => {
    const f = fold()
    const sink = lines()
    const result = { turn: 2, step: 1, message: { source: { kind: 'tool', callId: 'ghost' }, content: [] } }
    for (const e of log(
      ['turn/start', { turn: 1 }],
      ['turn/start', { turn: 2 }],
      ['tool/result', result],
      ['turn/end', { turn: 2, reason: { kind: 'completed' } }],
    ))
      f.push(e, sink)
    expect(sink.seen).toEqual([
      'open invoke_agent @10',
      'close invoke_agent @20 superseded',
      'open invoke_agent @20',
      'close invoke_agent @40',
    ])
  })

  it('caught up without a sink, it opens nothing for the past and goes on from the log', () => {
    const f = fold()
    const sink = lines()
    const events = log(
      ['turn/start', { turn: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
      ['turn/start', { turn: 2 }],
      ['turn/end', { turn: 2, reason: { kind: 'interrupted' } }],
    )
    f.push(events[0]!, undefined)
    f.push(events[1]!, undefined)
    f.push(events[2]!, sink)
    f.push(events[3]!, sink)
    expect(sink.seen).toEqual(['open invoke_agent @30', 'close invoke_agent @40'])
  })

  it('an interrupted turn (crash repair) is an error span', () => {
    const f = fold()
    let closed: SpanRecord | undefined
    const sink: SpanSink = { open: () => {}, close: (r) => void (closed = r) }
    for (const e of log(['turn/start', { turn: 1 }], ['turn/end', { turn: 1, reason: { kind: 'interrupted' } }]))
      f.push(e, sink)
    expect(closed!.status).toEqual({
      code: 'error',
      message: 'the turn was interrupted: the process ended before it did',
    })
    expect(closed!.attributes).toMatchObject({ 'error.type': 'INTERRUPTED', 'bridle.turn.end_reason': 'interrupted' })
  })

  it('an empty log finishes with nothing to close', () => {
    const sink = lines()
    fold().finish('unloaded', sink)
    expect(sink.seen).toEqual([])
  })
})
