import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '@bridle/llm'
import { RequestDigester, Session, requestDigestParts, verifyDigests, type AnySessionEvent } from '../src/index.js'
import { assistant, hashedMessages, user } from './helpers.js'

const SEED = 160_017
const config = { provider: 'p', model: 'm' }
const requestOf = (messages: readonly Message[]) => ({ ...config, messages })

/** One step as the agent loop takes it: step/start, the history, its digest (by `digester`), the record. */
function digestStep(s: Session, digester: RequestDigester, between?: (s: Session) => void) {
  s.append('step/start', { turn: 1, step: 1 })
  const messages = s.deriveMessages()
  between?.(s) // what a listener could do while the request is built (after the history was captured)
  s.append('request/digest', {
    turn: 1,
    step: 1,
    attempt: 1,
    algorithm: 'sha256',
    ...digester.digest(requestOf(messages)),
  })
}

/** A recorded log: `count` prompts and answers, a header, and a digest over the whole history at the end. */
function recordedLog(count: number): AnySessionEvent[] {
  const s = Session.create('rec')
  s.append('request/header', { header: { config }, reason: 'initial' })
  const digester = new RequestDigester()
  for (let i = 0; i < count; i++) {
    s.append('user/message', user(`q${i}`), { surfaceOp: 'append' })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant(`a${i}`) },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
  }
  digestStep(s, digester)
  return structuredClone(s.events) as AnySessionEvent[]
}

/** Both ways a session comes back from a log: seeded (snapshot copy) and restored by persistence. */
const reopen = (events: readonly AnySessionEvent[]) => [
  Session.create('seeded', events as never),
  Session.fromRestore('restored', structuredClone(events) as never, { version: 0, id: 'restored', createdAt: 1 }),
]

describe('continuing the digest chain from the log (Session.digestedPrefix)', () => {
  it('a reopened session hands its recorded chain over; a fresh digester hashes only the new messages', () => {
    for (const s of reopen(recordedLog(50))) {
      s.append('user/message', user('next'), { surfaceOp: 'append' })
      const messages = s.deriveMessages()
      const prefix = s.digestedPrefix(messages)
      expect(prefix?.count).toBe(100)
      const digester = new RequestDigester()
      const counted = hashedMessages()
      expect(digester.digest(requestOf(counted.wrap(messages)), prefix)).toEqual(
        requestDigestParts(requestOf(messages)),
      )
      expect(counted.hashed()).toBe(1)
      // Without the prefix the same request costs every message.
      const scratch = hashedMessages()
      new RequestDigester().digest(requestOf(scratch.wrap(messages)))
      expect(scratch.hashed()).toBe(101)
    }
  })

  it('is offered only for the array deriveMessages() last returned', () => {
    const [s] = reopen(recordedLog(3))
    const messages = s!.deriveMessages()
    expect(s!.digestedPrefix(messages)).toBeDefined()
    expect(s!.digestedPrefix([...messages])).toBeUndefined()
    s!.append('user/message', user('more'), { surfaceOp: 'append' })
    expect(s!.digestedPrefix(messages)).toBeDefined() // still the last derived array, and only appends since
    const next = s!.deriveMessages()
    expect(s!.digestedPrefix(messages)).toBeUndefined()
    expect(s!.digestedPrefix(next)?.count).toBe(6)
  })

  it('a surface replace after the digest retires it; the digester then hashes the history afresh', () => {
    for (const s of reopen(recordedLog(3))) {
      const nodes = s.surface.nodes
      s.append('user/message', user('summary'), {
        surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[1]! },
        sourceEventSeqs: [nodes[0]!, nodes[1]!],
      })
      const messages = s.deriveMessages()
      expect(s.digestedPrefix(messages)).toBeUndefined()
    }
  })

  it('rejects digests that did not cover the history they were appended after', () => {
    // A message appended while the request was built: the record covers fewer messages than the history held.
    const appended = Session.create('a')
    appended.append('user/message', user('q'), { surfaceOp: 'append' })
    digestStep(appended, new RequestDigester(), (s) => s.append('user/message', user('late'), { surfaceOp: 'append' }))
    const [a] = reopen(appended.events)
    expect(a!.digestedPrefix(a!.deriveMessages())).toBeUndefined()

    // A same-size replace while the request was built: the count matches, the content does not.
    const replaced = Session.create('r')
    replaced.append('user/message', user('q'), { surfaceOp: 'append' })
    digestStep(replaced, new RequestDigester(), (s) => {
      const seq = s.surface.nodes[0]!
      s.append('user/message', user('rewritten'), {
        surfaceOp: { op: 'replace', start: seq, end: seq },
        sourceEventSeqs: [seq],
      })
    })
    expect(verifyDigests(replaced.events).map((r) => r.ok)).toEqual([false])
    const [r] = reopen(replaced.events)
    expect(r!.digestedPrefix(r!.deriveMessages())).toBeUndefined()
  })

  it('ignores malformed records and keeps the last good one', () => {
    const events = recordedLog(2)
    const good = events.at(-1)!
    const next = (data: unknown): AnySessionEvent =>
      ({ type: 'request/digest', seq: events.length, time: 0, data }) as AnySessionEvent
    const base = good.data as { messages: { count: number; chain: string } }
    for (const data of [
      { ...base, algorithm: 'md5' },
      { ...base, messages: { count: 4, chain: 'not hex' } },
      { ...base, messages: { count: '4', chain: base.messages.chain } },
      { ...base, messages: null },
    ]) {
      const [s] = reopen([...events, next(data)])
      expect(s!.digestedPrefix(s!.deriveMessages())).toEqual(base.messages)
    }
  })

  it('a digester that already digested ignores a prefix; a later change inside a used prefix recomputes from scratch', () => {
    const [s] = reopen(recordedLog(4))
    const messages = s!.deriveMessages()
    const digester = new RequestDigester()
    digester.digest(requestOf(messages), s!.digestedPrefix(messages))
    const bogus = { count: 1, chain: '0'.repeat(64) }
    s!.append('user/message', user('q'), { surfaceOp: 'append' })
    const more = s!.deriveMessages()
    expect(digester.digest(requestOf(more), bogus)).toEqual(requestDigestParts(requestOf(more)))
    const nodes = s!.surface.nodes
    s!.append('user/message', user('summary'), {
      surfaceOp: { op: 'replace', start: nodes[1]!, end: nodes[2]! },
      sourceEventSeqs: [nodes[1]!, nodes[2]!],
    })
    const compacted = s!.deriveMessages()
    expect(digester.digest(requestOf(compacted))).toEqual(requestDigestParts(requestOf(compacted)))
  })
})

type Op =
  | { kind: 'user' }
  | { kind: 'assistant'; empty: boolean }
  | { kind: 'step'; during: 'nothing' | 'append' | 'replace' }
  | { kind: 'replace'; a: number; b: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'user' }),
  fc.boolean().map<Op>((empty) => ({ kind: 'assistant', empty })),
  fc
    .constantFrom('nothing', 'nothing', 'append', 'replace')
    .map<Op>((during) => ({ kind: 'step', during: during as 'nothing' })),
  fc.record({ kind: fc.constant('replace' as const), a: fc.nat(), b: fc.nat() }),
)

/** Replaces the current nodes between two picked positions with one user message. */
function replaceRange(s: Session, a: number, b: number, n: number) {
  const nodes = s.surface.nodes
  if (nodes.length === 0) return
  const [i, j] = [a % nodes.length, b % nodes.length].sort((x, y) => x - y) as [number, number]
  const shadowed = nodes.slice(i, j + 1)
  s.append('user/message', user(`r${n}`), {
    surfaceOp: { op: 'replace', start: nodes[i]!, end: nodes[j]! },
    sourceEventSeqs: [...shadowed],
  })
}

describe('property: the continued digest chain equals the from-scratch one', () => {
  it('random histories with digests, replaces and interleaved appends, reopened either way (fast-check)', () => {
    let continued = 0
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const s = Session.create('live')
        const digester = new RequestDigester()
        ops.forEach((op, n) => {
          if (op.kind === 'user') s.append('user/message', user(`u${n}`), { surfaceOp: 'append' })
          else if (op.kind === 'assistant') {
            s.append(
              'assistant/message',
              { turn: 1, step: 1, message: assistant(op.empty ? '' : `a${n}`) },
              { surfaceOp: 'append', sourceEventSeqs: [] },
            )
          } else if (op.kind === 'replace') replaceRange(s, op.a, op.b, n)
          else {
            digestStep(s, digester, (live) => {
              if (op.during === 'append') live.append('user/message', user(`late${n}`), { surfaceOp: 'append' })
              if (op.during === 'replace') replaceRange(live, n, n + 1, n)
            })
          }
        })
        for (const reopened of reopen(s.events)) {
          reopened.append('user/message', user('next'), { surfaceOp: 'append' })
          const messages = reopened.deriveMessages()
          const prefix = reopened.digestedPrefix(messages)
          const fresh = new RequestDigester()
          const counted = hashedMessages()
          expect(fresh.digest(requestOf(counted.wrap(messages)), prefix)).toEqual(
            requestDigestParts(requestOf(messages)),
          )
          if (prefix !== undefined) {
            continued++
            expect(counted.hashed()).toBe(messages.length - prefix.count)
          }
        }
      }),
      { seed: SEED, numRuns: 200, verbose: true },
    )
    // The property must actually exercise continuation, not only the fallback.
    expect(continued).toBeGreaterThan(50)
  })
})

describe('when a recorded prefix is used', () => {
  const bogus = (count: number) => ({ count, chain: 'f'.repeat(64) })

  it('a digester that began without one ignores the prefix the loop offers at every later step', () => {
    const s = Session.create('live')
    s.append('user/message', user('q0'), { surfaceOp: 'append' })
    const digester = new RequestDigester()
    digester.digest(requestOf(s.deriveMessages()))
    s.append('user/message', user('q1'), { surfaceOp: 'append' })
    const messages = s.deriveMessages()
    expect(digester.digest(requestOf(messages), bogus(1))).toEqual(requestDigestParts(requestOf(messages)))
  })

  it('a prefix that claims more messages than the request holds is not used', () => {
    const messages = [user('only'), assistant('one')]
    expect(new RequestDigester().digest(requestOf(messages), bogus(3))).toEqual(requestDigestParts(requestOf(messages)))
  })

  it('a prefix over the whole history is taken as recorded: a request re-sent after a reopen hashes no message', () => {
    for (const reopened of reopen(recordedLog(4))) {
      const messages = reopened.deriveMessages()
      const prefix = reopened.digestedPrefix(messages)
      expect(prefix?.count).toBe(messages.length)
      const counted = hashedMessages()
      expect(new RequestDigester().digest(requestOf(counted.wrap(messages)), prefix)).toEqual(
        requestDigestParts(requestOf(messages)),
      )
      expect(counted.hashed()).toBe(0)
    }
  })

  it('after continuing from it, two compactions of the new messages digest as from scratch', () => {
    for (const s of reopen(recordedLog(2))) {
      const digester = new RequestDigester()
      const digestNow = () => {
        const messages = s.deriveMessages()
        expect(digester.digest(requestOf(messages), s.digestedPrefix(messages))).toEqual(
          requestDigestParts(requestOf(messages)),
        )
      }
      digestNow() // continues the recorded chain over the four recorded messages
      for (const text of ['u4', 'u5', 'u6', 'u7']) s.append('user/message', user(text), { surfaceOp: 'append' })
      digestNow()
      const summarize = (from: number, to: number, text: string) => {
        const nodes = s.surface.nodes
        s.append('user/message', user(text), {
          surfaceOp: { op: 'replace', start: nodes[from]!, end: nodes[to]! },
          sourceEventSeqs: nodes.slice(from, to + 1),
        })
        digestNow()
      }
      summarize(5, 6, 'summary of u5 and u6') // u4, summary, u7 follow the recorded four
      summarize(4, 4, 'summary of u4') // the first summary and u7 move: their digests are reused
    }
  })

  it('after continuing from it, every later step digests as from scratch, through appends and replaces (fast-check)', () => {
    // Replaces land anywhere, or among the last three nodes: after the prefix, where the digests are kept.
    const stepArb = fc.oneof(
      fc.constant({ kind: 'user' as const }),
      fc.constant({ kind: 'step' as const }),
      fc.record({ kind: fc.constant('replace' as const), a: fc.nat(), b: fc.nat(), tail: fc.boolean() }),
    )
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.nat(1), fc.array(stepArb, { maxLength: 30 }), (n, way, ops) => {
        const s = reopen(recordedLog(n))[way]!
        const digester = new RequestDigester()
        const digestNow = () => {
          const messages = s.deriveMessages()
          expect(digester.digest(requestOf(messages), s.digestedPrefix(messages))).toEqual(
            requestDigestParts(requestOf(messages)),
          )
        }
        digestNow()
        ops.forEach((op, i) => {
          if (op.kind === 'user') s.append('user/message', user(`u${i}`), { surfaceOp: 'append' })
          else if (op.kind === 'step') digestNow()
          else {
            const last = s.surface.nodes.length - 1
            const near = Math.min(3, last + 1)
            if (op.tail && near > 0) replaceRange(s, last - (op.a % near), last - (op.b % near), i)
            else replaceRange(s, op.a, op.b, i)
          }
        })
        digestNow()
      }),
      { seed: SEED, numRuns: 200 },
    )
  })
})
