import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SeqSet } from '../src/surface/seq-set.js'

describe('SeqSet', () => {
  it('answers has() like a Set<number> under any sequence of adds and deletes, dense or not', () => {
    const seq = fc.oneof(
      fc.nat(300),
      fc.constantFrom(0, 63, 64, 65, 1 << 26, (1 << 26) - 1, Number.MAX_SAFE_INTEGER, -1, 1.5),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), seq), { maxLength: 200 }),
        fc.array(seq, { maxLength: 50 }),
        (ops, probes) => {
          const ours = new SeqSet()
          const reference = new Set<number>()
          for (const [add, value] of ops) {
            if (add) {
              ours.add(value)
              reference.add(value)
            } else {
              ours.delete(value)
              reference.delete(value)
            }
          }
          for (const value of [...probes, ...ops.map(([, v]) => v)]) expect(ours.has(value)).toBe(reference.has(value))
        },
      ),
    )
  })
})
