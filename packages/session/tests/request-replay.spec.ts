/**
 * `RequestReplay`, the incremental pass behind `replayRequests`, fed one event at a time as a live reader feeds it:
 * it settles every request with exactly the row `replayRequests` gives, each as soon as its usage is in the log, and
 * settling early at its step's end (what a live reader does when a step ends without usage) changes nothing on a log a
 * session wrote.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  replayRequests,
  RequestReplay,
  type AnySessionEvent,
  type ReplayedRequest,
  type SettledRequest,
} from '../src/index.js'
import { PLAIN_STEP, produceLog, tamper, tamperArb, turnsArb } from './replay-log.js'

const plain = PLAIN_STEP

/**
 * Feeds `events` one at a time; `early` settles the pending request at every `step/end` and `turn/end`; `verify:
 * false` trusts the recorded digests.
 */
function incremental(events: readonly AnySessionEvent[], early: boolean, verify = true): SettledRequest[] {
  const replay = new RequestReplay({ verify })
  const out: SettledRequest[] = []
  for (const event of events) {
    const settled = replay.push(event)
    if (settled !== undefined) out.push(settled)
    if (event.type === 'request/digest') expect(replay.current?.seq).toBe(event.seq)
    if (early && (event.type === 'step/end' || event.type === 'turn/end')) {
      const now = replay.settle()
      if (now !== undefined) out.push(now)
    }
  }
  const last = replay.settle()
  if (last !== undefined) out.push(last)
  expect(replay.length).toBe(events.length)
  return out
}

const same = (a: readonly SettledRequest[], b: readonly ReplayedRequest[], verified = true) => {
  expect(a.map((r) => r.seq)).toEqual(b.map((r) => r.seq))
  a.forEach((r, i) => {
    expect(r.cache).toEqual(b[i]!.cache)
    expect(r.verification).toEqual(verified ? b[i]!.verification : undefined)
    expect(r.rebuilt).toEqual(b[i]!.rebuilt)
    expect(r.messageSeqs).toEqual(b[i]!.messageSeqs)
  })
}

describe('RequestReplay', () => {
  it('gives what replayRequests gives, settling each request once its usage is logged (property)', () => {
    fc.assert(
      fc.property(turnsArb, (turns) => {
        const events = produceLog(turns).events
        const whole = [...replayRequests(events)]
        same(incremental(events, false), whole)
        // a log a session wrote reports no usage for a step after the step ended
        same(incremental(events, true), whole)
      }),
      { numRuns: 120 },
    )
  })

  it('trusting the recorded digests: no verdicts, the same rows on every log a session wrote (property)', () => {
    fc.assert(
      fc.property(turnsArb, (turns) => {
        const events = produceLog(turns).events
        const whole = [...replayRequests(events)]
        same(incremental(events, true, false), whole, false)
        // and on a stored (parsed, unfrozen) copy
        const stored = JSON.parse(JSON.stringify(events)) as AnySessionEvent[]
        same(incremental(stored, true, false), [...replayRequests(stored)], false)
      }),
      { numRuns: 120 },
    )
  })

  it('trusting: a tampered message chain is not noticed (that is what verifying is for)', () => {
    const events = JSON.parse(JSON.stringify(produceLog([[{ ...plain }], [{ ...plain }]]).events)) as any[]
    const first = events.find((e) => e.type === 'request/digest')
    first.data.messages.chain = 'f'.repeat(64)
    const verified = [...replayRequests(events)]
    const trusted = incremental(events, false, false)
    expect(verified[1]!.cache.messages).toMatchObject({ kept: false })
    expect(trusted[1]!.cache.messages).toEqual({ kept: true })
  })

  it('on tampered stored logs too, when fed to the end (property)', () => {
    fc.assert(
      fc.property(turnsArb, fc.array(tamperArb, { minLength: 1, maxLength: 3 }), (turns, tampers) => {
        const events = tamper(produceLog(turns).events, tampers)
        if (!events.every((e, i) => e.seq === i)) return
        same(incremental(events, false), [...replayRequests(events)])
      }),
      { numRuns: 120 },
    )
  })

  it('a request settles at its usage, before the next digest', () => {
    const events = produceLog([[{ ...plain }], [{ ...plain }]]).events
    const replay = new RequestReplay()
    const settledAt: string[] = []
    for (const event of events) if (replay.push(event) !== undefined) settledAt.push(event.type)
    expect(settledAt).toEqual(['assistant/message', 'assistant/message'])
    expect(replay.settle()).toBeUndefined()
  })

  it('refuses an event whose seq is not its index, and folds nothing', () => {
    const events = produceLog([[{ ...plain }]]).events
    const replay = new RequestReplay()
    replay.push(events[0]!)
    expect(() => replay.push(events[2]!)).toThrow(
      'RequestReplay: event seq 2 at index 1; a replay follows a whole log from seq 0',
    )
    expect(replay.length).toBe(1)
  })
})
