/**
 * The append fuzz probe shared by `append-limits.spec.ts` (bounded) and `append-limits.stress.ts` (full size): random
 * inputs, valid or not (too deep, too large, not JSON), go through `append` on a session with a store attached; every
 * rejected input must leave the log, the surface, the derived messages and the store exactly as they were, and every
 * accepted one must be recorded. Returns the figures.
 */
import { JsonLimitError, MAX_JSON_BYTES, MAX_JSON_DEPTH } from '@bridle/llm'
import { Context } from 'cordis'
import fc from 'fast-check'
import { expect } from 'vitest'
import { SessionStore, type Session } from '../src/index.js'
import { user } from './helpers.js'

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

/** What JSON makes of a value (fast-check's JSON values include -0, which sessions refuse as not lossless). */
const normalized = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

type Input = { kind: 'ok' | 'deep' | 'huge' | 'not-json'; type: string; data: unknown }

const inputs: fc.Arbitrary<Input> = fc.oneof(
  {
    weight: 16,
    arbitrary: fc.record({
      kind: fc.constant('ok' as const),
      type: fc.constant('plugin/ok'),
      data: fc.jsonValue({ maxDepth: 4 }).map(normalized),
    }),
  },
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
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant('ok' as const),
      type: fc.constant('user/message'),
      data: fc.string().map((t) => user(t)),
    }),
  },
)

/** What one fuzz run tried. */
export interface AppendFuzzFigures {
  sequences: number
  inputs: number
  accepted: number
  rejected: Record<Input['kind'], number>
}

/** Runs `runs` random sequences of appends (seeded) and checks every rejection changed nothing. */
export function appendFuzz(runs: number, seed: number): AppendFuzzFigures {
  const figures: AppendFuzzFigures = {
    sequences: 0,
    inputs: 0,
    accepted: 0,
    rejected: { ok: 0, deep: 0, huge: 0, 'not-json': 0 },
  }
  fc.assert(
    fc.property(fc.array(inputs, { minLength: 1, maxLength: 8 }), (sequence) => {
      figures.sequences++
      const ctx = new Context()
      ctx.plugin(SessionStore)
      const session = ctx.sessions.create('fuzz')
      const published: string[] = []
      ctx.on('session/event', (_s, event) => void published.push(event.type))
      for (const input of sequence) {
        figures.inputs++
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
          figures.accepted++
          expect(after.seq).toBe(before.seq + 1)
          expect(published.at(-1)).toBe(input.type)
          continue
        }
        figures.rejected[input.kind]++
        const fits = input.kind === 'huge' && (input.data as { t: string }).t.length === MAX_JSON_BYTES - 8
        expect(input.kind === 'ok' || fits, String(error)).toBe(false)
        expect(after).toEqual(before)
        expect(after.events).toBe(before.events)
        if (input.kind === 'deep' || input.kind === 'huge') expect(error).toBeInstanceOf(JsonLimitError)
      }
    }),
    { seed, numRuns: runs },
  )
  return figures
}
