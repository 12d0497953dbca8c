import { describe, expect, it } from 'vitest'
import { Session, reconstructRequest, requestSteps } from '../src/index.js'
import { assistant, header, toolCallMessage, toolResult, user } from './helpers.js'

const tool = { name: 'read_file', description: 'reads', parameters: { type: 'object' } }

/** Example 5: a tool round — step 1 calls read_file, step 2 answers; step 2 logged no header. */
function toolRound() {
  const s = Session.create('s')
  s.append('turn/start', { turn: 1 })
  s.append('step/start', { turn: 1, step: 1 })
  const prompt = s.append('user/message', user('read package.json'), { surfaceOp: 'append' })
  const h = s.append('request/header', {
    header: header({ system: 'You are helpful.', tools: [tool] }),
    reason: 'initial',
  })
  s.append('request/context', { provider: 'p', model: 'm', contextWindow: 64000 })
  const chunk = s.append('assistant/chunk', {
    turn: 1,
    step: 1,
    chunk: { type: 'tool-call-delta', index: 0, id: 'c1' as never, argumentsDelta: '{}' },
  })
  const call = s.append(
    'assistant/message',
    { turn: 1, step: 1, message: toolCallMessage('c1') },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
  const toolCall = s.append('tool/call', {
    turn: 1,
    step: 1,
    callId: 'c1' as never,
    name: 'read_file',
    arguments: '{}',
  })
  const result = s.append(
    'tool/result',
    { turn: 1, step: 1, message: toolResult('c1', '{"name":"bridle"}') },
    { surfaceOp: 'append', sourceEventSeqs: [toolCall.seq] },
  )
  s.append('step/end', { turn: 1, step: 1 })
  const step2 = s.append('step/start', { turn: 1, step: 2 })
  const snapshot = s.append('user/message', user('<context>cwd: /work</context>'), { surfaceOp: 'append' })
  const out = s.append('assistant/chunk', {
    turn: 1,
    step: 2,
    chunk: { type: 'text-delta', index: 0, text: 'It is bridle.' },
  })
  s.append(
    'assistant/message',
    { turn: 1, step: 2, message: assistant('It is bridle.') },
    { surfaceOp: 'append', sourceEventSeqs: [out.seq] },
  )
  s.append('step/end', { turn: 1, step: 2 })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  return { s, prompt, h, call, result, step2, snapshot, out }
}

describe('reconstructRequest, failure paths', () => {
  it('rejects bad coordinates', () => {
    const { s } = toolRound()
    for (const at of [
      { turn: 0, step: 1 },
      { turn: 1, step: 1.5 },
      { turn: '1', step: 1 },
      { turn: 1, step: -1 },
    ]) {
      expect(() => reconstructRequest(s.events, at as never)).toThrow(
        'reconstructRequest: turn and step must be positive safe integers',
      )
    }
  })

  it('a missing step, an empty log, a missing header', () => {
    const { s } = toolRound()
    expect(() => reconstructRequest(s.events, { turn: 2, step: 1 })).toThrow(
      'reconstructRequest: no step/start for turn 2 step 1',
    )
    expect(() => reconstructRequest([])).toThrow('reconstructRequest: no step/start in the given events')
    const t = Session.create('t')
    t.append('turn/start', { turn: 1 })
    t.append('step/start', { turn: 1, step: 1 })
    expect(() => reconstructRequest(t.events, { turn: 1, step: 1 })).toThrow(
      'reconstructRequest: no request/header precedes turn 1 step 1',
    )
    expect(() => reconstructRequest(t.events)).toThrow('reconstructRequest: no request/header precedes turn 1 step 1')
  })

  it('surface errors in the prefix propagate', () => {
    const events = [
      { type: 'step/start', seq: 0, time: 0, data: { turn: 1, step: 1 } },
      { type: 'user/message', seq: 1, time: 0, data: user('x') },
    ]
    expect(() => reconstructRequest(events)).toThrow(
      'session event "user/message" is surface-eligible and requires a surfaceOp marker',
    )
  })
})

describe('reconstructRequest', () => {
  it('example 5: step 2 has the prompt, the call, the result and the snapshot, with step 1’s initial header', () => {
    const { s, prompt, h, call, result, step2, snapshot, out } = toolRound()
    const r = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(r.messages).toEqual([prompt.data, call.data.message, result.data.message, snapshot.data])
    expect(r.messages[0]).toBe(prompt.data)
    expect(r.headerSeq).toBe(h.seq)
    expect(r.headerReason).toBe('initial')
    expect(r.stepStartSeq).toBe(step2.seq)
    expect(r.outputSeq).toBe(out.seq)
    expect(r.cutSeq).toBe(out.seq)
    expect(r.context).toEqual({ provider: 'p', model: 'm', contextWindow: 64000 })
    expect(r.request).toEqual({
      provider: 'p',
      model: 'm',
      system: 'You are helpful.',
      tools: [tool],
      messages: r.messages,
    })
    expect(r.request.messages).toBe(r.messages)
    expect(Object.isFrozen(r)).toBe(true)
    expect(Object.isFrozen(r.request)).toBe(true)
  })

  it('step 1 is cut at its first output', () => {
    const { s, prompt } = toolRound()
    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.messages).toEqual([prompt.data])
    expect(r.cutSeq).toBe(5)
    expect(r.outputSeq).toBe(5)
  })

  it('a step without output is cut at its step/end or turn/end; an open step at the end of the log', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('request/header', { header: header(), reason: 'initial' })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    s.append('step/end', { turn: 1, step: 1 })
    s.append('user/message', user('later'), { surfaceOp: 'append' })
    s.append('step/start', { turn: 1, step: 2 })
    s.append('turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } })
    s.append('turn/start', { turn: 2 })
    s.append('step/start', { turn: 2, step: 1 })
    s.append('user/message', user('open'), { surfaceOp: 'append' })
    const one = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(one.cutSeq).toBe(4)
    expect(one.outputSeq).toBeUndefined()
    expect(one.messages).toHaveLength(1)
    expect(reconstructRequest(s.events, { turn: 1, step: 2 }).cutSeq).toBe(7)
    const open = reconstructRequest(s.events, { turn: 2, step: 1 })
    expect(open.cutSeq).toBe(s.events.length)
    expect(open.messages).toHaveLength(3)
  })

  it('without `at`, the last step/start and the whole prefix (dispatch time / retried attempt)', () => {
    const { s } = toolRound()
    const prefix = s.events.slice(0, 13) // before step 2's first chunk
    const r = reconstructRequest(prefix)
    expect([r.turn, r.step, r.cutSeq]).toEqual([1, 2, 13])
    expect(JSON.stringify(r.request)).toBe(JSON.stringify(reconstructRequest(s.events, { turn: 1, step: 2 }).request))
  })

  it('omits empty system/tools from the request and uses the header in force at the cut', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('request/header', { header: header({ system: '', tools: [] }), reason: 'initial' })
    s.append('step/end', { turn: 1, step: 1 })
    s.append('step/start', { turn: 1, step: 2 })
    s.append('request/header', { header: header({ system: 'new' }), reason: 'change' })
    expect(reconstructRequest(s.events, { turn: 1, step: 1 }).request).toEqual({
      provider: 'p',
      model: 'm',
      messages: [],
    })
    const two = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(two.request.system).toBe('new')
    expect(two.headerReason).toBe('change')
  })

  it('requestSteps lists every step/start in log order', () => {
    const { s } = toolRound()
    expect(requestSteps(s.events)).toEqual([
      { turn: 1, step: 1, stepStartSeq: 1 },
      { turn: 1, step: 2, stepStartSeq: 10 },
    ])
  })
})
