/**
 * Where `reconstructRequest` cuts a step's request and what it puts in it, on hand-written logs with the less common
 * shapes: events a plugin logged with `null` data, an answer that came without chunks, a step that never produced
 * output nor closed while other steps made summary requests, a log that opens with `step/start`, a summary request
 * that names no messages, and a header without system or tools.
 */
import { describe, expect, it } from 'vitest'
import {
  reconstructRequest,
  Session,
  type CompactionRequestRecord,
  type EpochHeader,
  type SystemSectionRecord,
} from '../src/index.js'
import { assistant, header, user } from './helpers.js'

const texts = (messages: readonly { content: readonly unknown[] }[]) =>
  messages.map((m) => (m.content[0] as { text: string }).text)

const h: EpochHeader = header({ system: 'be brief' })

/** A session in turn 1 step 1: the prompt, then the header the step's request is built under. */
function firstStep(prompt: string, head: EpochHeader = h): Session {
  const s = Session.create('s')
  s.append('turn/start', { turn: 1 })
  s.append('step/start', { turn: 1, step: 1 })
  s.append('user/message', user(prompt), { surfaceOp: 'append' })
  s.append('request/header', { header: head, reason: 'initial' })
  return s
}

function answer(s: Session, turn: number, step: number, text: string) {
  const chunk = s.append('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text } })
  return s.append(
    'assistant/message',
    { turn, step, message: assistant(text) },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
}

const summaryRecord = (turn: number, step: number, count: number): CompactionRequestRecord => ({
  turn,
  step,
  reason: 'threshold',
  count,
  config: { provider: 'p', model: 'small' },
  instruction: user(`summarize for turn ${turn} step ${step}`),
})

describe('events whose data is null', () => {
  it('are passed over: the step is still cut before its first output', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('plugin/heartbeat', null)
    s.append('user/message', user('q'), { surfaceOp: 'append' })
    s.append('request/header', { header: h, reason: 'initial' })
    s.append('plugin/heartbeat', null)
    const chunk = s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'a' } })
    s.append('assistant/message', { turn: 1, step: 1, message: assistant('a') }, { surfaceOp: 'append' })
    s.append('plugin/heartbeat', null)
    s.append('step/end', { turn: 1, step: 1 })

    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.cutSeq).toBe(chunk.seq)
    expect(r.outputSeq).toBe(chunk.seq)
    expect(texts(r.messages)).toEqual(['q'])
    expect(r.request).toStrictEqual({ provider: 'p', model: 'm', system: 'be brief', messages: r.messages })
    // without coordinates: the last step, with the whole log as its request point
    expect(texts(reconstructRequest(s.events).messages)).toEqual(['q', 'a'])
  })
})

describe('an answer that came without chunks (a non-streaming call)', () => {
  it('is the step’s first output: the request is cut before it and leaves it out', () => {
    const s = firstStep('q')
    const message = s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('a') },
      { surfaceOp: 'append' },
    )
    s.append('step/end', { turn: 1, step: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })

    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.outputSeq).toBe(message.seq)
    expect(r.cutSeq).toBe(message.seq)
    expect(texts(r.messages)).toEqual(['q'])
  })
})

/**
 * Turn 1 step 1 opened and then nothing of it was logged again: no output, no step/end, and turn 1 has no turn/end.
 * Step 2 of turn 1 made a summary request; so did step 1 of turn 2, which then answered and ended its turn. Turn 3
 * began after that.
 */
function deadStepLog() {
  const s = firstStep('one')
  s.append('step/start', { turn: 1, step: 2 })
  const sameTurn = s.append('request/compaction', summaryRecord(1, 2, 1))
  s.append('turn/start', { turn: 2 })
  s.append('step/start', { turn: 2, step: 1 })
  s.append('user/message', user('two'), { surfaceOp: 'append' })
  const sameStep = s.append('request/compaction', summaryRecord(2, 1, 2))
  answer(s, 2, 1, 'answer two')
  s.append('step/end', { turn: 2, step: 1 })
  s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
  s.append('turn/start', { turn: 3 })
  s.append('step/start', { turn: 3, step: 1 })
  s.append('user/message', user('three'), { surfaceOp: 'append' })
  return { s, sameTurn: sameTurn.seq, sameStep: sameStep.seq }
}

describe('a step that neither produced output nor closed', () => {
  it('is cut at the end of the events: another turn’s turn/end does not close it', () => {
    const { s } = deadStepLog()
    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.outputSeq).toBeUndefined()
    expect(r.cutSeq).toBe(s.events.length)
    expect(texts(r.messages)).toEqual(['one', 'two', 'answer two', 'three'])
  })

  it('is no summary request: the summary records of its turn’s other step and of another turn’s step 1 are not its own', () => {
    const { s } = deadStepLog()
    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r).not.toHaveProperty('purpose')
    expect(r).not.toHaveProperty('compaction')
    expect(r.header).toEqual(h)
    expect(r.request).toStrictEqual({ provider: 'p', model: 'm', system: 'be brief', messages: r.messages })
  })

  it('while each of those steps takes its own record', () => {
    const { s, sameTurn, sameStep } = deadStepLog()
    const step2 = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(step2.compaction?.seq).toBe(sameTurn)
    expect(texts(step2.request.messages)).toEqual(['one', 'summarize for turn 1 step 2'])
    const turn2 = reconstructRequest(s.events, { turn: 2, step: 1 })
    expect(turn2.compaction?.seq).toBe(sameStep)
    expect(texts(turn2.request.messages)).toEqual(['one', 'two', 'summarize for turn 2 step 1'])
  })
})

describe('events that begin with the step’s own step/start', () => {
  it('rebuild that step, its header logged after the step/start', () => {
    const s = Session.create('s')
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('q'), { surfaceOp: 'append' })
    const head = s.append('request/header', { header: h, reason: 'initial' })
    answer(s, 1, 1, 'a')
    s.append('step/end', { turn: 1, step: 1 })

    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.stepStartSeq).toBe(0)
    expect(r.headerSeq).toBe(head.seq)
    expect(texts(r.messages)).toEqual(['q'])
    expect(texts(reconstructRequest(s.events).messages)).toEqual(['q', 'a'])
  })
})

describe('a summary request whose count is not a positive whole number', () => {
  function logWithCount(count: number) {
    const s = firstStep('only one', header())
    s.append('request/compaction', summaryRecord(1, 1, count))
    return s
  }

  it.each([0, 1.5])('is refused (count %s)', (count) => {
    expect(() => reconstructRequest(logWithCount(count).events, { turn: 1, step: 1 })).toThrow(
      `reconstructRequest: the compaction request of turn 1 step 1 carries ${count} messages but the surface holds 1`,
    )
  })
})

describe('a header without system or tools', () => {
  it('rebuilds a request without those keys, exactly as it was sent, and keeps the header’s empty manifest', () => {
    const sections: SystemSectionRecord[] = []
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    const prompt = s.append('user/message', user('q'), { surfaceOp: 'append' })
    const config = { provider: 'p', model: 'm', maxTokens: 9 }
    s.append('request/header', { header: header({ config }), reason: 'initial', sections })
    answer(s, 1, 1, 'a')

    const r = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(r.request).toStrictEqual({ provider: 'p', model: 'm', maxTokens: 9, messages: [prompt.data] })
    expect(Object.keys(r.request)).toEqual(['provider', 'model', 'maxTokens', 'messages'])
    expect(r.sections).toEqual([])
  })
})

describe('a step with a cache plan recorded before its summary request (a retried step)', () => {
  it('the summary request does not take the conversation request’s plan', () => {
    const s = firstStep('one')
    const plan = { policy: 'bridle', breakpoints: [{ at: 'tools', ttl: '5m', reason: 'tools' }] }
    s.append('request/cache', { turn: 1, step: 1, plan })
    s.append('request/compaction', summaryRecord(1, 1, 1))
    const summary = reconstructRequest(s.events, { turn: 1, step: 1 })
    expect(summary.compaction).toBeDefined()
    expect(summary.request).not.toHaveProperty('cache')
  })
})
