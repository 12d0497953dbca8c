/**
 * `RequestFacts`, the pass that outlines each request and settles its cache row without listing its messages, held to
 * `RequestReplay({ verify: false })` — the replay it stands in for — on generated logs: the same rows, settled at the
 * same events, and outlines equal to the rebuilt requests minus their messages; on logs a session wrote, on stored
 * copies, and on tampered ones (digests, messages, headers, compaction records, surface markers, recorded counts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  cachePrefixReport,
  RequestFacts,
  RequestReplay,
  type AnySessionEvent,
  type SettledOutline,
  type SettledRequest,
} from '../src/index.js'
import { PLAIN_STEP, produceLog, tamper, tamperArb, turnsArb } from './replay-log.js'

const plain = PLAIN_STEP

interface Run<T> {
  /** What each event settled (`undefined` where it settled none), then what the log's end settles. */
  readonly settled: (T | undefined)[]
  readonly outlines: unknown[]
}

/** Feeds `events` one at a time, settling early at every `step/end` and `turn/end` when `early` (as a tracer does). */
function run<T extends { seq: number }>(
  replay: { push(e: AnySessionEvent): T | undefined; settle(): T | undefined; readonly current: unknown },
  events: readonly AnySessionEvent[],
  early: boolean,
): Run<T> | 'threw' {
  const settled: (T | undefined)[] = []
  const outlines: unknown[] = []
  try {
    for (const event of events) {
      settled.push(replay.push(event))
      if (event.type === 'request/digest') outlines.push(replay.current)
      if (early && (event.type === 'step/end' || event.type === 'turn/end')) settled.push(replay.settle())
    }
    settled.push(replay.settle())
  } catch {
    return 'threw'
  }
  return { settled, outlines }
}

/** A rebuilt request as an outline shows it: no context, no messages. */
function outlineOf(rebuilt: SettledRequest['rebuilt']): unknown {
  if (rebuilt === undefined) return undefined
  const { context: _c, messages: _m, request, ...rest } = rebuilt
  const { messages: _r, ...fields } = request
  return { ...rest, request: fields }
}

/** Asserts that `RequestFacts` says of `events` exactly what the trusting replay says. */
function expectSame(events: readonly AnySessionEvent[], early: boolean): SettledOutline[] {
  const replay = run<SettledRequest>(new RequestReplay({ verify: false }), events, early)
  const facts = run<SettledOutline>(new RequestFacts(), events, early)
  expect(facts === 'threw').toBe(replay === 'threw')
  if (facts === 'threw' || replay === 'threw') return []
  expect(facts.settled.map((s) => s?.seq)).toEqual(replay.settled.map((s) => s?.seq))
  facts.settled.forEach((s, i) => {
    const r = replay.settled[i]
    if (s === undefined || r === undefined) return
    expect(s.cache).toEqual(r.cache)
    expect(s.record).toBe(r.record)
    expect(s.outline).toEqual(outlineOf(r.rebuilt))
    expect(s.error === undefined).toBe(r.rebuilt !== undefined)
  })
  expect(facts.outlines.map((o) => (o as SettledOutline).outline)).toEqual(
    replay.outlines.map((o) => outlineOf((o as SettledRequest).rebuilt)),
  )
  return facts.settled.filter((s) => s !== undefined)
}

/** A stored copy of `events` whose `at`-th digest records one message more than its request had. */
function miscount(events: readonly AnySessionEvent[], at: number): AnySessionEvent[] {
  const log = JSON.parse(JSON.stringify(events)) as { type: string; data: any }[]
  const digests = log.filter((e) => e.type === 'request/digest')
  if (digests.length > 0) digests[at % digests.length]!.data.messages.count += 1
  return log as unknown as AnySessionEvent[]
}

describe('RequestFacts', () => {
  it('gives the rows the trusting replay gives, and the verifying one, on every log a session wrote (property)', () => {
    fc.assert(
      fc.property(turnsArb, fc.boolean(), (turns, early) => {
        const events = produceLog(turns).events
        const settled = expectSame(events, early)
        expect(settled.map((s) => s.cache)).toEqual(cachePrefixReport(events))
        expectSame(JSON.parse(JSON.stringify(events)) as AnySessionEvent[], early)
      }),
      { numRuns: 150 },
    )
  })

  it('and on tampered stored logs, and logs whose digests miscount their messages (property)', () => {
    fc.assert(
      fc.property(
        turnsArb,
        fc.array(tamperArb, { maxLength: 3 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.boolean(),
        (turns, tampers, miscounted, early) => {
          let events = tamper(produceLog(turns).events, tampers)
          if (miscounted !== undefined) events = miscount(events, miscounted)
          if (!events.every((e, i) => e.seq === i)) return
          expectSame(events, early)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('a plain conversation: every row after the first keeps the whole previous request', () => {
    const events = produceLog([[{ ...plain }], [{ ...plain }], [{ ...plain, toolRound: true }, { ...plain }]]).events
    const settled = expectSame(events, false)
    expect(settled.map((s) => s.cache.messages)).toEqual([undefined, { kept: true }, { kept: true }, { kept: true }])
    expect(settled[1]!.cache.prefixKept!.messages).toBe(1)
    expect(settled[0]!.outline).toMatchObject({ turn: 1, step: 1, headerReason: 'initial', request: { model: 'm' } })
  })

  it('a compaction: the summary request and the request after the checkpoint are compared whole', () => {
    const turns = [[{ ...plain, prompts: 2 }], [{ ...plain, compaction: 'checkpoint' as const }, { ...plain }]]
    const settled = expectSame(produceLog(turns).events, false)
    expect(settled[1]!.outline?.purpose).toBe('compaction')
    expect(settled[2]!.cache.messages).toMatchObject({ kept: false, cause: { kind: 'replace' } })
  })

  it('refuses an event whose seq is not its index, and folds nothing', () => {
    const events = produceLog([[{ ...plain }]]).events
    const facts = new RequestFacts()
    facts.push(events[0]!)
    expect(() => facts.push(events[2]!)).toThrow(
      'RequestFacts: event seq 2 at index 1; a replay follows a whole log from seq 0',
    )
    expect(facts.length).toBe(1)
  })
})
