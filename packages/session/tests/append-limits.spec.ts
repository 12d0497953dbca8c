/**
 * The JSON limit at `session.append`, fuzzed: random inputs, valid or not (too deep, too large, not JSON), go through
 * `append` on a session with a store attached; every rejected input leaves the log, the surface, the derived messages
 * and the store exactly as they were, and every accepted one is recorded. Bounded here; `pnpm test:stress` runs more.
 */
import { JsonLimitError, MAX_JSON_BYTES, MAX_JSON_DEPTH } from '@bridle/llm'
import { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionStore, type Session } from '../src/index.js'
import { user } from './helpers.js'

const RUNS = process.env.BRIDLE_STRESS === '1' ? 2000 : 100
/**
 * Strings around the size limit, made once and flat (a string built by concatenation would be copied on every
 * measure): `{"t":"…"}` is the string plus 8 bytes, so these are exactly at the limit, one byte over, 16 over.
 */
const NEAR_LIMIT = [0, 1, 16].map((over) => Buffer.alloc(MAX_JSON_BYTES - 8 + over, 'h').toString('latin1'))

function nested(levels: number, leaf: unknown): unknown {
  let value = leaf
  for (let i = 0; i < levels; i++) value = i % 3 === 0 ? { k: value } : [value]
  return value
}

/** Everything an observer could see of a session. */
function state(session: Session, published: string[]) {
  return {
    seq: session.seq,
    events: session.events,
    nodes: session.surface.nodes,
    messages: session.deriveMessages(),
    published: published.length,
  }
}

type Input = { kind: 'ok' | 'deep' | 'huge' | 'not-json'; type: string; data: unknown }

const inputs: fc.Arbitrary<Input> = fc.oneof(
  { weight: 16, arbitrary: fc.record({ kind: fc.constant('ok' as const), type: fc.constant('plugin/ok'), data: fc.jsonValue({ maxDepth: 4 }) }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      type: fc.constant('plugin/deep'),
      data: fc.integer({ min: MAX_JSON_DEPTH + 1, max: MAX_JSON_DEPTH + 50 }).map((n) => nested(n, 'leaf')),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('huge' as const),
      type: fc.constant('plugin/huge'),
      data: fc.constantFrom(...NEAR_LIMIT).map((t) => ({ t })),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('not-json' as const),
      type: fc.constant('plugin/bad'),
      data: fc.constantFrom<unknown>(NaN, -0, undefined, 1n, [undefined], { d: new Date(0) }),
    }),
  },
  { weight: 7, arbitrary: fc.record({ kind: fc.constant('ok' as const), type: fc.constant('user/message'), data: fc.string().map((t) => user(t)) }) },
)

describe('append under fuzzed input', () => {
  it(`rejected inputs change nothing, accepted ones are recorded (${RUNS} sequences, seeded)`, () => {
    let tried = 0
    let rejected = 0
    fc.assert(
      fc.property(fc.array(inputs, { minLength: 1, maxLength: 8 }), (sequence) => {
        const ctx = new Context()
        ctx.plugin(SessionStore)
        const session = ctx.sessions.create('fuzz')
        const published: string[] = []
        ctx.on('session/event', (_s, event) => void published.push(event.type))
        for (const input of sequence) {
          tried++
          const before = state(session, published)
          const surfaceOp = input.type === 'user/message' ? { surfaceOp: 'append' as const } : undefined
          let error: unknown
          try {
            session.append(input.type, input.data, surfaceOp)
          } catch (e) {
            error = e
          }
          const after = state(session, published)
          if (error === undefined) {
            expect(after.seq).toBe(before.seq + 1)
            expect(published.at(-1)).toBe(input.type)
            continue
          }
          rejected++
          expect(input.kind === 'ok' || (input.kind === 'huge' && (input.data as { t: string }).t.length === MAX_JSON_BYTES - 8)).toBe(false)
          expect(after).toEqual(before)
          expect(after.events).toBe(before.events)
          if (input.kind === 'deep' || input.kind === 'huge') expect(error).toBeInstanceOf(JsonLimitError)
        }
      }),
      { seed: 4242, numRuns: RUNS },
    )
    expect(tried).toBeGreaterThan(RUNS)
    expect(rejected).toBeGreaterThan(0)
  })
})
