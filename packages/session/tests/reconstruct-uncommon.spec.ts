/**
 * `reconstructRequest` on logs that are less tidy than a clean run: a step that failed before any output, a turn that
 * was interrupted without its step/end, later turns that reuse the same step numbers, and notes logged after a step
 * closed. The rebuilt request must be exactly what that step sent: its own history, its header and its route.
 */
import { describe, expect, it } from 'vitest'
import { reconstructRequest, Session, type EpochHeader } from '../src/index.js'
import { assistant, header, user } from './helpers.js'

const h1: EpochHeader = header({ system: 'first system' })
const h2: EpochHeader = header({ config: { provider: 'p', model: 'm2' }, system: 'second system' })

const texts = (messages: readonly { content: readonly unknown[] }[]) =>
  messages.map((m) => (m.content[0] as { text: string }).text)

function answer(s: Session, turn: number, step: number, text: string) {
  const chunk = s.append('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text } })
  s.append(
    'assistant/message',
    { turn, step, message: assistant(text) },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
}

/**
 * Turn 1: step 1 fails before any output (step/end, then a note logged for the next step), the turn ends with an
 * error. Turn 2 reuses step number 1 on another route and answers. Turn 3 is interrupted: step 1 opened, no step/end.
 */
function untidy() {
  const s = Session.create('s')
  s.append('turn/start', { turn: 1 })
  s.append('step/start', { turn: 1, step: 1 })
  s.append('user/message', user('one'), { surfaceOp: 'append' })
  s.append('request/header', { header: h1, reason: 'initial' })
  s.append('request/context', { provider: 'p', model: 'm', contextWindow: 1000 })
  const failedEnd = s.append('step/end', { turn: 1, step: 1 })
  s.append('user/message', user('note after the step'), { surfaceOp: 'append' })
  s.append('turn/end', { turn: 1, reason: { kind: 'error', error: { message: 'upstream down', code: 'SERVER' } } })
  s.append('turn/start', { turn: 2 })
  s.append('step/start', { turn: 2, step: 1 })
  s.append('user/message', user('two'), { surfaceOp: 'append' })
  s.append('request/header', { header: h2, reason: 'change' })
  s.append('request/context', { provider: 'p', model: 'm2', contextWindow: 2000 })
  answer(s, 2, 1, 'answer two')
  s.append('step/end', { turn: 2, step: 1 })
  s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
  s.append('turn/start', { turn: 3 })
  s.append('step/start', { turn: 3, step: 1 })
  s.append('user/message', user('three'), { surfaceOp: 'append' })
  const interrupted = s.append('turn/end', { turn: 3, reason: { kind: 'interrupted' } })
  s.append('turn/start', { turn: 4 })
  s.append('step/start', { turn: 4, step: 1 })
  s.append('user/message', user('four'), { surfaceOp: 'append' })
  answer(s, 4, 1, 'answer four')
  return { s, failedEnd: failedEnd.seq, interrupted: interrupted.seq }
}

describe('reconstructRequest on untidy logs', () => {
  it('a step that failed before any output ends at its own step/end: later notes, turns and routes stay out', () => {
    const { s, failedEnd } = untidy()
    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.cutSeq).toBe(failedEnd)
    expect(r.outputSeq).toBeUndefined()
    expect(texts(r.messages)).toEqual(['one'])
    expect(r.header).toEqual(h1)
    expect(r.headerReason).toBe('initial')
    expect(r.context).toEqual({ provider: 'p', model: 'm', contextWindow: 1000 })
    expect(r.request).toEqual({ provider: 'p', model: 'm', system: 'first system', messages: r.messages })
  })

  it('the same step number in a later turn is that turn’s step: its own history, header and route', () => {
    const { s } = untidy()
    const r = reconstructRequest(s.events, { turn: 2, step: 1 })
    expect(texts(r.messages)).toEqual(['one', 'note after the step', 'two'])
    expect(r.header).toEqual(h2)
    expect(r.headerReason).toBe('change')
    expect(r.context).toEqual({ provider: 'p', model: 'm2', contextWindow: 2000 })
    expect(r.outputSeq).toBe(s.events.findIndex((e) => e.type === 'assistant/chunk'))
  })

  it('an interrupted turn without step/end ends at its turn/end, not at a later turn’s output', () => {
    const { s, interrupted } = untidy()
    const r = reconstructRequest(s.events, { turn: 3, step: 1 })
    expect(r.cutSeq).toBe(interrupted)
    expect(r.outputSeq).toBeUndefined()
    expect(texts(r.messages)).toEqual(['one', 'note after the step', 'two', 'answer two', 'three'])
    expect(r.header).toEqual(h2)
  })

  it('an assistant message without content is not part of the rebuilt history', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('q'), { surfaceOp: 'append' })
    s.append('request/header', { header: h1, reason: 'initial' })
    const chunk = s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: '' } })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
    )
    s.append('step/end', { turn: 1, step: 1 })
    s.append('step/start', { turn: 1, step: 2 })
    s.append('user/message', user('again'), { surfaceOp: 'append' })
    const r = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(texts(r.messages)).toEqual(['q', 'again'])
    expect(r.messages).toEqual(s.deriveMessages())
  })
})

describe('a step without output, followed by an answered step of the same turn', () => {
  it('is rebuilt as that step sent it, not with the next step’s history and header', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('one'), { surfaceOp: 'append' })
    s.append('request/header', { header: h1, reason: 'initial' })
    const firstEnd = s.append('step/end', { turn: 1, step: 1 }) // failed (or compacted) before any output
    s.append('step/start', { turn: 1, step: 2 })
    s.append('user/message', user('steer'), { surfaceOp: 'append' })
    s.append('request/header', { header: h2, reason: 'change' })
    answer(s, 1, 2, 'answer')
    s.append('step/end', { turn: 1, step: 2 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })

    const first = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(first.cutSeq).toBe(firstEnd.seq)
    expect(first.outputSeq).toBeUndefined()
    expect(texts(first.request.messages)).toEqual(['one'])
    expect(first.request.model).toBe('m')
    expect(first.request.system).toBe('first system')
    const second = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(texts(second.request.messages)).toEqual(['one', 'steer'])
    expect(second.request.system).toBe('second system')
  })
})

describe('a log that opens with its request/header', () => {
  it('finds the header at the very first position (seq 0)', () => {
    const s = Session.create('s')
    s.append('request/header', { header: h1, reason: 'initial' })
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('one'), { surfaceOp: 'append' })
    answer(s, 1, 1, 'answer one')
    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.headerSeq).toBe(0)
    expect(r.header).toEqual(h1)
    expect(texts(r.messages)).toEqual(['one'])
  })
})
