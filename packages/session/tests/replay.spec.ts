/**
 * `replayRequests`, the one-pass replay behind `verifyDigests` and `cachePrefixReport`, against the per-request path
 * (each request rebuilt with `reconstructRequest` from its own prefix, every digest and chain recomputed from
 * scratch), on generated logs: as recorded, and stored copies with tampered digests, messages, headers, compaction
 * records and surface markers, dropped events and digests moved behind their step's output.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isDeepFrozen } from '@bridle/llm'
import {
  cachePrefixReport,
  replayRequests,
  verifyDigests,
  type AnySessionEvent,
  type ReplayedRequest,
} from '../src/index.js'
import { replayPerRequest } from '../src/provability/replay-per-request.js'
import { PLAIN_STEP, produceLog, tamper, tamperArb, turnsArb } from './replay-log.js'

const plain = PLAIN_STEP

/** Asserts that the one-pass replay of `events` is exactly the per-request one. */
function expectSameReplay(events: readonly AnySessionEvent[]): ReplayedRequest[] {
  const fast = [...replayRequests(events)]
  const slow = [...replayPerRequest(events)]
  expect(fast.length).toBe(slow.length)
  fast.forEach((f, i) => {
    const s = slow[i]!
    expect(f.seq).toBe(s.seq)
    expect(f.record).toBe(s.record)
    expect(f.verification).toEqual(s.verification)
    expect(f.cache).toEqual(s.cache)
    expect(f.messageSeqs).toEqual(s.messageSeqs)
    expect(f.rebuilt === undefined).toBe(s.rebuilt === undefined)
    if (f.rebuilt === undefined || s.rebuilt === undefined) return
    expect(f.rebuilt).toEqual(s.rebuilt)
    // the same log objects, not copies
    f.rebuilt.messages.forEach((m, k) => expect(m).toBe(s.rebuilt!.messages[k]))
    expect(
      Object.isFrozen(f.rebuilt) && Object.isFrozen(f.rebuilt.messages) && Object.isFrozen(f.rebuilt.request),
    ).toBe(true)
    for (const m of f.rebuilt.messages) expect(Object.isFrozen(m) && Object.isFrozen(m.content)).toBe(true)
  })
  expect(verifyDigests(events)).toEqual(slow.map((r) => r.verification))
  expect(cachePrefixReport(events)).toEqual(slow.map((r) => r.cache))
  return fast
}

describe('replayRequests: one pass gives exactly what rebuilding each request from its prefix gives', () => {
  it('on recorded logs: every digest verifies, rows and rebuilt requests agree (property)', () => {
    fc.assert(
      fc.property(turnsArb, (turns) => {
        const s = produceLog(turns)
        const replayed = expectSameReplay(s.events)
        expect(replayed.every((r) => r.verification.ok)).toBe(true)
        // and on a stored (parsed, unfrozen) copy of the same log
        expectSameReplay(JSON.parse(JSON.stringify(s.events)) as AnySessionEvent[])
      }),
      { numRuns: 120 },
    )
  })

  it('on tampered stored logs: the same verdicts, errors and rows (property)', () => {
    fc.assert(
      fc.property(turnsArb, fc.array(tamperArb, { minLength: 1, maxLength: 3 }), (turns, tampers) => {
        expectSameReplay(tamper(produceLog(turns).events, tampers))
      }),
      { numRuns: 200 },
    )
  })

  it('a log whose seqs are not its indexes is replayed request by request', () => {
    const s = produceLog([[{ ...plain }], [{ ...plain, toolRound: true }]])
    const events = JSON.parse(JSON.stringify(s.events)) as { seq: number }[]
    events[3]!.seq = 30
    expectSameReplay(events as AnySessionEvent[])
    expect(verifyDigests(events as AnySessionEvent[]).every((r) => !r.ok)).toBe(true)
  })

  it('freezes the log objects it reaches, once each', () => {
    const s = produceLog([[plain], [{ ...plain, snapshot: true }], [plain]])
    const stored = JSON.parse(JSON.stringify(s.events)) as AnySessionEvent[]
    const [, , last] = [...replayRequests(stored)]
    for (const message of last!.rebuilt!.messages) expect(isDeepFrozen(message)).toBe(true)
    expect(isDeepFrozen(last!.rebuilt!.header)).toBe(true)
  })
})
