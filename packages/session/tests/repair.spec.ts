import { describe, expect, it } from 'vitest'
import { Session, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, interruptedTurnClosers } from '../src/index.js'
import { assistant, header, toolCallMessage, toolResult, user } from './helpers.js'

describe('interruptedTurnClosers', () => {
  it('returns [] for an empty log or a log with no open turn', () => {
    expect(interruptedTurnClosers([])).toEqual([])
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    s.append('user/message', user('after'), { surfaceOp: 'append' })
    expect(interruptedTurnClosers(s.events)).toEqual([])
  })

  it('example 4: an outcome-unknown result citing the call, then step/end, then turn/end interrupted', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('go'), { surfaceOp: 'append' })
    s.append('request/header', { header: header(), reason: 'initial' })
    const chunk = s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: '' } })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: toolCallMessage('c1') },
      { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
    )
    const call = s.append('tool/call', { turn: 1, step: 1, callId: 'c1' as never, name: 'read_file', arguments: '{}' })
    const last = s.events.at(-1)!
    const closers = interruptedTurnClosers(s.events)
    expect(closers.map((c) => c.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
    expect(closers.map((c) => c.seq)).toEqual([last.seq + 1, last.seq + 2, last.seq + 3])
    expect(closers.every((c) => c.time === last.time)).toBe(true)
    expect(closers[0]).toEqual({
      type: 'tool/result',
      seq: 7,
      time: last.time,
      surfaceOp: 'append',
      sourceEventSeqs: [call.seq],
      data: {
        turn: 1,
        step: 1,
        error: { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN },
        message: {
          id: 'interrupted-tool-result-c1-7',
          role: 'user',
          source: { kind: 'tool', callId: 'c1' },
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              isError: true,
              content: [
                {
                  type: 'text',
                  text: 'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.',
                },
              ],
            },
          ],
        },
      },
    })
    expect(closers[1]).toEqual({ type: 'step/end', seq: 8, time: last.time, data: { turn: 1, step: 1 } })
    expect(closers[2]).toEqual({
      type: 'turn/end',
      seq: 9,
      time: last.time,
      data: { turn: 1, reason: { kind: 'interrupted' } },
    })
    // the closed log replays cleanly
    expect(() => Session.create('s', [...s.events, ...closers] as never)).not.toThrow()
  })

  it('an unrecorded call gets TOOL_NOT_STARTED without provenance; answered calls get nothing; order is registration order', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 3 })
    s.append('step/start', { turn: 3, step: 2 })
    s.append(
      'assistant/message',
      {
        turn: 3,
        step: 2,
        message: assistant([
          { type: 'tool-call', id: 'b' as never, name: 't', arguments: '{}' },
          { type: 'tool-call', id: 'a' as never, name: 't', arguments: '{}' },
          { type: 'tool-call', id: 'done' as never, name: 't', arguments: '{}' },
        ]),
      },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    s.append('tool/call', { turn: 3, step: 2, callId: 'a' as never, name: 't', arguments: '{}' })
    s.append('tool/call', { turn: 3, step: 2, callId: 'ghost' as never, name: 't', arguments: '{}' })
    const doneCall = s.append('tool/call', { turn: 3, step: 2, callId: 'done' as never, name: 't', arguments: '{}' })
    s.append(
      'tool/result',
      { turn: 3, step: 2, message: toolResult('done', 'ok') },
      { surfaceOp: 'append', sourceEventSeqs: [doneCall.seq] },
    )
    const closers = interruptedTurnClosers(s.events)
    expect(
      closers.map((c) => (c.data as { message?: { source: { callId: string } } }).message?.source.callId ?? c.type),
    ).toEqual(['b', 'a', 'step/end', 'turn/end'])
    expect(closers[0]!.sourceEventSeqs).toBeUndefined()
    expect((closers[0]!.data as { error: unknown }).error).toEqual({
      name: 'ToolNotStartedError',
      code: TOOL_NOT_STARTED,
    })
    expect(JSON.stringify(closers[0]!.data)).toContain(
      'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.',
    )
    expect(closers[1]!.sourceEventSeqs).toEqual([3])
    expect(closers[0]!.data).toMatchObject({ turn: 3, step: 2 })
    expect(closers[3]!.data).toEqual({ turn: 3, reason: { kind: 'interrupted' } })
  })

  it('calls whose step already ended stay dangling; no step/end without an open step; the last tool/call seq wins', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: toolCallMessage('old') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    s.append('step/end', { turn: 1, step: 1 })
    s.append('step/start', { turn: 1, step: 2 })
    s.append(
      'assistant/message',
      { turn: 1, step: 2, message: toolCallMessage('x') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    s.append('tool/call', { turn: 1, step: 2, callId: 'x' as never, name: 't', arguments: '{}' })
    const second = s.append('tool/call', { turn: 1, step: 2, callId: 'x' as never, name: 't', arguments: '{}' })
    s.append('step/end', { turn: 1, step: 2 })
    expect(interruptedTurnClosers(s.events).map((c) => c.type)).toEqual(['turn/end'])
    const t = Session.create('t', s.events.slice(0, -1) as never)
    const closers = interruptedTurnClosers(t.events)
    expect(closers.map((c) => c.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
    expect(closers[0]!.sourceEventSeqs).toEqual([second.seq])
  })
})
