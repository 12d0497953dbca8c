/**
 * Compaction steps in the log (`request/compaction`, a summary request's digest and chunks, then the checkpoint that
 * replaces what it summarized): reconstruction, verification and the cache report, on hand-written logs.
 */
import { describe, expect, it } from 'vitest'
import type { TokenUsage } from '@bridle/llm'
import {
  cachePrefixReport,
  reconstructRequest,
  requestDigestParts,
  Session,
  verifyDigests,
  type CompactionRequestRecord,
} from '../src/index.js'
import { assistant, header, user } from './helpers.js'

const SYSTEM = 'You are terse.'

/** Appends the digest of the request the log says step `{turn, step}` sends right now. */
function digest(s: Session, turn: number, step: number, purpose?: 'compaction') {
  const parts = requestDigestParts(reconstructRequest(s.events, { turn, step }).request)
  s.append('request/digest', { turn, step, attempt: 1, algorithm: 'sha256', ...(purpose ? { purpose } : {}), ...parts })
}

function answer(s: Session, turn: number, step: number, text: string, usage: TokenUsage) {
  const chunk = s.append('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text } })
  s.append(
    'assistant/message',
    { turn, step, message: assistant(text), usage },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
}

/**
 * Three conversation turns, then turn 4: its prompt enters in step 1, which becomes a compaction step summarizing
 * the first 4 messages on route `p/small`; step 2 sends the request.
 */
function compactedLog(options: { checkpoint?: boolean } = {}) {
  const s = Session.create('s')
  for (let turn = 1; turn <= 3; turn++) {
    s.append('turn/start', { turn })
    s.append('step/start', { turn, step: 1 })
    s.append('user/message', user(`prompt ${turn}`), { surfaceOp: 'append' })
    if (turn === 1) s.append('request/header', { header: header({ system: SYSTEM }), reason: 'initial' })
    digest(s, turn, 1)
    answer(s, turn, 1, `answer ${turn}`, { inputTokens: 100 * turn, outputTokens: 5, cacheReadTokens: 10 * turn })
    s.append('step/end', { turn, step: 1 })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
  }
  s.append('turn/start', { turn: 4 })
  s.append('step/start', { turn: 4, step: 1 })
  s.append('user/message', user('prompt 4'), { surfaceOp: 'append' })
  const instruction = user('Summarize the conversation above.')
  const record: CompactionRequestRecord = {
    turn: 4,
    step: 1,
    reason: 'threshold',
    count: 4,
    config: { provider: 'p', model: 'small', maxTokens: 50 },
    instruction,
  }
  const recordSeq = s.append('request/compaction', record).seq
  digest(s, 4, 1, 'compaction')
  const chunks = [
    s.append('assistant/chunk', { turn: 4, step: 1, chunk: { type: 'text-delta', index: 0, text: 'the summary' } }).seq,
    s.append('assistant/chunk', {
      turn: 4,
      step: 1,
      chunk: { type: 'usage', usage: { inputTokens: 20, outputTokens: 3, cacheReadTokens: 280 } },
    }).seq,
  ]
  let checkpointSeq: number | undefined
  if (options.checkpoint !== false) {
    const nodes = s.surface.nodes.slice(0, 4)
    checkpointSeq = s.append('user/message', user('Summary: the summary'), {
      surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[3]! },
      sourceEventSeqs: [...nodes, recordSeq, ...chunks],
    }).seq
  }
  s.append('step/end', { turn: 4, step: 1 })
  s.append('step/start', { turn: 4, step: 2 })
  digest(s, 4, 2)
  answer(s, 4, 2, 'answer 4', { inputTokens: 90, outputTokens: 5 })
  s.append('step/end', { turn: 4, step: 2 })
  s.append('turn/end', { turn: 4, reason: { kind: 'completed' } })
  return { s, record, recordSeq, checkpointSeq, instruction }
}

describe('reconstructRequest over a compaction step', () => {
  it('rebuilds the summary request: the conversation system and tools on its own route, the first messages, the instruction', () => {
    const { s, recordSeq, instruction } = compactedLog()
    const r = reconstructRequest(s.events, { turn: 4, step: 1 })
    expect(r.purpose).toBe('compaction')
    expect(r.compaction).toEqual({ seq: recordSeq, record: s.events[recordSeq]!.data })
    expect(r.header).toEqual({ config: { provider: 'p', model: 'small', maxTokens: 50 }, system: SYSTEM })
    expect(r.request.messages.map((m) => m.content)).toEqual(
      ['prompt 1', 'answer 1', 'prompt 2', 'answer 2']
        .map((text) => [{ type: 'text', text }])
        .concat([instruction.content as never]),
    )
    expect(r.request.messages.at(-1)).toBe((s.events[recordSeq]!.data as CompactionRequestRecord).instruction)
  })

  it('rebuilds the step after it from the checkpoint on, on the conversation route', () => {
    const { s, checkpointSeq } = compactedLog()
    const r = reconstructRequest(s.events, { turn: 4, step: 2 })
    expect(r.purpose).toBeUndefined()
    expect(r.header.config).toEqual({ provider: 'p', model: 'm' })
    expect(r.messages[0]).toBe(s.events[checkpointSeq!]!.data)
    expect(r.messages.slice(1).map((m) => m.content[0])).toEqual(
      ['prompt 3', 'answer 3', 'prompt 4'].map((text) => ({ type: 'text', text })),
    )
  })

  it('refuses a record that carries more messages than the surface holds', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('only one'), { surfaceOp: 'append' })
    s.append('request/header', { header: header(), reason: 'initial' })
    s.append('request/compaction', {
      turn: 1,
      step: 1,
      reason: 'manual',
      count: 2,
      config: { provider: 'p', model: 'm' },
      instruction: user('x'),
    })
    expect(() => reconstructRequest(s.events, { turn: 1, step: 1 })).toThrow(
      'reconstructRequest: the compaction request of turn 1 step 1 carries 2 messages but the surface holds 1',
    )
  })
})

describe('verifyDigests over compaction steps', () => {
  it('verifies the summary request and every conversation request around it, marking the summary', () => {
    const { s } = compactedLog()
    const rows = verifyDigests(s.events)
    expect(rows.map((r) => [r.turn, r.step, r.purpose, r.ok])).toEqual([
      [1, 1, undefined, true],
      [2, 1, undefined, true],
      [3, 1, undefined, true],
      [4, 1, 'compaction', true],
      [4, 2, undefined, true],
    ])
  })

  it('a digest whose purpose disagrees with the log fails, naming why', () => {
    const { s } = compactedLog()
    const events = s.events.map((e) => {
      if (e.type !== 'request/digest') return e
      const d = e.data as { turn: number; step: number; purpose?: string }
      if (d.turn === 4 && d.step === 1) return { ...e, data: { ...d, purpose: undefined } }
      if (d.turn === 4 && d.step === 2) return { ...e, data: { ...d, purpose: 'compaction' } }
      return e
    })
    const rows = verifyDigests(events as never).slice(3)
    expect(rows.map((r) => [r.ok, r.error])).toEqual([
      [false, 'turn 4 step 1 made a compaction request but its digest is not marked as one'],
      [false, 'the digest is marked as a compaction request but turn 4 step 2 has no request/compaction record'],
    ])
  })

  it('a changed instruction or count in the record fails the summary request’s messages', () => {
    const { s, recordSeq } = compactedLog()
    for (const change of [{ count: 3 }, { instruction: user('Summarize it differently.') }]) {
      const events = s.events.map((e) =>
        e.seq === recordSeq ? { ...e, data: { ...(e.data as object), ...change } } : e,
      )
      const row = verifyDigests(events as never)[3]!
      expect(row.ok).toBe(false)
      expect(row.mismatched).toEqual(['messages', 'request'])
    }
  })
})

describe('cachePrefixReport around a compaction', () => {
  it('compares the summary with the conversation request before it and names the compaction as the next break', () => {
    const { s, recordSeq, checkpointSeq } = compactedLog()
    const rows = cachePrefixReport(s.events)
    expect(rows).toHaveLength(5)
    const [, , third, summary, after] = rows as [never, never, (typeof rows)[0], (typeof rows)[0], (typeof rows)[0]]
    expect(summary).toMatchObject({
      turn: 4,
      step: 1,
      purpose: 'compaction',
      previousSeq: third.seq,
      system: { kept: true },
      tools: { kept: true },
      messages: { kept: false, firstDifferingPosition: 4, cause: { kind: 'compaction-request', seq: recordSeq } },
      prefixKept: { messages: 4 },
      cachedInputTokens: 280,
      inputTokens: 300,
    })
    // the request after the compaction is compared with the last conversation request (turn 3), not the summary
    expect(after).toMatchObject({
      turn: 4,
      step: 2,
      previousSeq: third.seq,
      messages: {
        kept: false,
        firstDifferingPosition: 0,
        cause: {
          kind: 'replace',
          seq: checkpointSeq,
          compaction: {
            turn: 4,
            step: 1,
            requestSeq: recordSeq,
            reason: 'threshold',
            replacedMessages: 4,
            inputTokensBefore: 330,
            inputTokensAfter: 90,
            tokensSaved: 240,
          },
        },
      },
      inputTokens: 90,
    })
  })

  it('a replace that no compaction step made is named without compaction details', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    const a = s.append('user/message', user('a'), { surfaceOp: 'append' }).seq
    s.append('request/header', { header: header(), reason: 'initial' })
    digest(s, 1, 1)
    s.append('step/end', { turn: 1, step: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const r = s.append('user/message', user('b'), {
      surfaceOp: { op: 'replace', start: a, end: a },
      sourceEventSeqs: [a],
    }).seq
    s.append('turn/start', { turn: 2 })
    s.append('step/start', { turn: 2, step: 1 })
    digest(s, 2, 1)
    expect(cachePrefixReport(s.events)[1]!.messages).toEqual({
      kept: false,
      firstDifferingPosition: 0,
      cause: { kind: 'replace', seq: r },
    })
  })

  it('a summary that never replaced anything leaves the next request’s prefix intact', () => {
    const { s } = compactedLog({ checkpoint: false })
    const rows = cachePrefixReport(s.events)
    expect(rows[4]!.messages).toEqual({ kept: true })
    expect(verifyDigests(s.events).every((r) => r.ok)).toBe(true)
  })
})
