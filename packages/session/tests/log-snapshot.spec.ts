import fc from 'fast-check'
import { createUserMessage } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { Session, jsonValueViolation, snapshotJsonValue } from '../src/index.js'
import { snapshotForLog } from '../src/json/json.js'

const SEED = 160_018

/** Every object reachable from `value` is frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen)
}

/** Every object reachable from `copy` is a different object from every object reachable from `source`. */
function detached(copy: unknown, source: unknown): boolean {
  const originals = new Set<unknown>()
  const collect = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return
    originals.add(v)
    Object.values(v).forEach(collect)
  }
  collect(source)
  const check = (v: unknown): boolean =>
    typeof v !== 'object' || v === null || (!originals.has(v) && Object.values(v).every(check))
  return check(copy)
}

/** Freezes some subtrees of `value` (chosen by `pick`), leaving the rest mutable. */
function freezeSome(value: unknown, pick: () => boolean): unknown {
  if (typeof value !== 'object' || value === null) return value
  for (const child of Object.values(value)) freezeSome(child, pick)
  return pick() ? Object.freeze(value) : value
}

describe('snapshotForLog: the session log copy', () => {
  it('accepts and rejects exactly what snapshotJsonValue does, with the same text and violation; frozen and detached (fast-check)', () => {
    const odd = fc.constantFrom<unknown>(undefined, NaN, -0, Infinity, () => 1, Symbol('s'), new Date(0), new Map())
    const leaf = fc.oneof({ weight: 8, arbitrary: fc.jsonValue({ maxDepth: 1 }) }, { weight: 1, arbitrary: odd })
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
      ),
    })).node
    fc.assert(
      fc.property(tree, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (value, picks) => {
        let i = 0
        const source = freezeSome(value, () => picks[i++ % picks.length]!)
        const expected = snapshotJsonValue(source)
        const result = snapshotForLog(source)
        if (expected === undefined) {
          expect(result).toEqual({ ok: false, violation: jsonValueViolation(source) })
          return
        }
        expect(result.ok).toBe(true)
        if (!result.ok) return
        expect(JSON.stringify(result.value)).toBe(JSON.stringify(expected))
        expect(deeplyFrozen(result.value)).toBe(true)
        expect(detached(result.value, source)).toBe(true)
      }),
      { seed: SEED, numRuns: 300, verbose: true },
    )
  })

  it('runs a getter once and freezes its value in the copy', () => {
    let calls = 0
    const withGetter = Object.defineProperty({}, 'n', { enumerable: true, get: () => ({ count: ++calls }) })
    const result = snapshotForLog({ withGetter }) as { ok: true; value: { withGetter: { n: { count: number } } } }
    expect(calls).toBe(1)
    expect(result.value.withGetter.n.count).toBe(1)
    expect(Object.isFrozen(result.value.withGetter.n)).toBe(true)
  })

  it('an append commits a deep-frozen copy of the data (the caller keeps its own object)', () => {
    const s = Session.create('s')
    const message = createUserMessage('hi')
    const event = s.append('user/message', message, { surfaceOp: 'append' })
    expect(event.data).not.toBe(message)
    expect(event.data).toEqual(message)
    expect(deeplyFrozen(event)).toBe(true)
  })
})
