import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NamedEntries } from '@bridle/scope'

class DuplicateSection extends Error {}
const table = <V = number>() =>
  new NamedEntries<V>((name) => new DuplicateSection(`section "${name}" is already registered`))

describe('NamedEntries failures', () => {
  it('throws exactly the object the duplicate factory returned, and keeps the first entry', () => {
    const made: Error[] = []
    const names: string[] = []
    const entries = new NamedEntries<number>((name) => {
      names.push(name)
      const error = new DuplicateSection(`dup ${name}`)
      made.push(error)
      return error
    })
    entries.insert('a', 1)
    let caught: unknown
    try {
      entries.insert('a', 2)
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(made[0])
    expect(names).toEqual(['a'])
    expect(entries.get('a')).toBe(1)
    expect([...entries.keys()]).toEqual(['a'])
  })

  it('never calls the factory for a fresh name', () => {
    let calls = 0
    const entries = new NamedEntries<number>(() => (calls++, new Error('dup')))
    entries.insert('a', 1)
    entries.insert('b', 2)
    expect(calls).toBe(0)
  })

  it('an old undo never removes a later insertion under the same name', () => {
    const entries = table()
    const undoFirst = entries.insert('a', 1)
    undoFirst()
    entries.insert('a', 2)
    undoFirst()
    expect(entries.get('a')).toBe(2)
  })
})

describe('NamedEntries', () => {
  it('stores, reads and undoes idempotently', () => {
    const entries = table<string>()
    expect(entries.isEmpty()).toBe(true)
    const undoA = entries.insert('a', 'A')
    entries.insert('b', 'B')
    expect(entries.isEmpty()).toBe(false)
    expect(entries.has('a')).toBe(true)
    expect(entries.get('a')).toBe('A')
    expect(entries.get('zz')).toBeUndefined()
    expect([...entries.entries()]).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ])
    undoA()
    undoA()
    expect(entries.has('a')).toBe(false)
    expect([...entries.keys()]).toEqual(['b'])
    expect([...entries.values()]).toEqual(['B'])
  })

  it('iterators are live while the table does not drain', () => {
    const entries = table()
    entries.insert('a', 1)
    const undoB = entries.insert('b', 2)
    const keys = entries.keys()
    const values = entries.values()
    const pairs = entries.entries()
    expect(keys.next().value).toBe('a')
    expect(values.next().value).toBe(1)
    expect(pairs.next().value).toEqual(['a', 1])
    undoB()
    entries.insert('c', 3)
    expect([...keys]).toEqual(['c'])
    expect([...values]).toEqual([3])
    expect([...pairs]).toEqual([['c', 3]])
  })

  it('a drain starts a new generation: iterators opened before it finish (spec example 4)', () => {
    const entries = table<string>()
    const undoOnly = entries.insert('only', 'only')
    const values = entries.values()
    const keys = entries.keys()
    expect(values.next()).toEqual({ done: false, value: 'only' })
    undoOnly()
    entries.insert('again', 'again')
    expect(values.next().done).toBe(true)
    expect([...keys]).toEqual([])
    expect([...entries.values()]).toEqual(['again'])
  })

  it('a provider that replaces itself mid-iteration is not evaluated twice in one pass', () => {
    const entries = table<() => string>()
    const evaluated: string[] = []
    let undo = entries.insert('self', () => 'v1')
    for (const provider of entries.values()) {
      evaluated.push(provider())
      undo()
      undo = entries.insert('self', () => 'v2')
    }
    expect(evaluated).toEqual(['v1'])
    expect([...entries.values()].map((p) => p())).toEqual(['v2'])
  })

  it('matches a Map model under any sequence of inserts and (stale) undos (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), name: fc.constantFrom('a', 'b', 'c', 'd'), value: fc.nat() }),
      fc.record({ kind: fc.constant('undo' as const), index: fc.nat(30) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const entries = table()
        const model = new Map<string, { value: number; token: object }>()
        const undos: { undo: () => void; name: string; token: object }[] = []
        for (const step of ops) {
          if (step.kind === 'insert') {
            if (model.has(step.name)) {
              expect(() => entries.insert(step.name, step.value)).toThrow(DuplicateSection)
            } else {
              const token = {}
              undos.push({ undo: entries.insert(step.name, step.value), name: step.name, token })
              model.set(step.name, { value: step.value, token })
            }
          } else if (undos.length > 0) {
            const target = undos[step.index % undos.length]!
            target.undo()
            if (model.get(target.name)?.token === target.token) model.delete(target.name)
          }
          expect([...entries.entries()]).toEqual([...model].map(([name, { value }]) => [name, value]))
          expect(entries.isEmpty()).toBe(model.size === 0)
        }
      }),
    )
  })
})
