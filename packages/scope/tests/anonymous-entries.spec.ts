import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnonymousEntries } from '@bridle/scope'

describe('AnonymousEntries', () => {
  it('treats equal values, even one object, as independent registrations', () => {
    const entries = new AnonymousEntries<object>()
    const listener = {}
    const undoFirst = entries.append(listener)
    entries.append(listener)
    expect([...entries.values()]).toEqual([listener, listener])
    undoFirst()
    undoFirst()
    expect([...entries.values()]).toEqual([listener])
    expect(entries.isEmpty()).toBe(false)
  })

  it('undo is idempotent and removes only its own registration', () => {
    const entries = new AnonymousEntries<string>()
    const undoA = entries.append('a')
    const undoB = entries.append('b')
    entries.append('c')
    undoB()
    undoB()
    expect([...entries.values()]).toEqual(['a', 'c'])
    undoA()
    expect([...entries.values()]).toEqual(['c'])
  })

  it('an undo from an old generation does nothing to the new one', () => {
    const entries = new AnonymousEntries<string>()
    const undoOld = entries.append('x')
    undoOld()
    entries.append('x')
    undoOld()
    expect([...entries.values()]).toEqual(['x'])
  })

  it('values() is live until the table drains', () => {
    const entries = new AnonymousEntries<string>()
    entries.append('a')
    const live = entries.values()
    expect(live.next().value).toBe('a')
    entries.append('b')
    expect(live.next().value).toBe('b')

    const fresh = new AnonymousEntries<string>()
    const undo = fresh.append('only')
    const stale = fresh.values()
    expect(stale.next().value).toBe('only')
    undo()
    expect(fresh.isEmpty()).toBe(true)
    fresh.append('again')
    expect(stale.next().done).toBe(true)
    expect([...fresh.values()]).toEqual(['again'])
  })

  it('matches a list model under any sequence of appends and undos (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), value: fc.constantFrom('x', 'y') }),
      fc.record({ kind: fc.constant('undo' as const), index: fc.nat(30) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const entries = new AnonymousEntries<string>()
        const model: { value: string; token: object }[] = []
        const undos: { undo: () => void; token: object }[] = []
        for (const step of ops) {
          if (step.kind === 'append') {
            const token = {}
            undos.push({ undo: entries.append(step.value), token })
            model.push({ value: step.value, token })
          } else if (undos.length > 0) {
            const target = undos[step.index % undos.length]!
            target.undo()
            const at = model.findIndex((m) => m.token === target.token)
            if (at >= 0) model.splice(at, 1)
          }
          expect([...entries.values()]).toEqual(model.map((m) => m.value))
          expect(entries.isEmpty()).toBe(model.length === 0)
        }
      }),
    )
  })
})
