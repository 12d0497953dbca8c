import fc from 'fast-check'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import {
  createAssistantMessage,
  createUserMessage,
  extendHistory,
  extendsHistory,
  historyBaseOf,
  historyChainOf,
  type Message,
} from '@bridle/llm'
import { replayIndexOf } from '../src/replay-index.js'

const assistant = (provider: string, replay = true): Message =>
  createAssistantMessage({
    content: [{ type: 'text', text: provider }],
    source: { provider, model: 'm', ...(replay ? { replayState: { p: provider } } : {}) },
  })

/** The index computed from scratch. */
const scan = (messages: readonly Message[]): Map<string, number> => {
  const out = new Map<string, number>()
  for (const m of messages) {
    if (m.source.kind === 'model' && m.source.replayState !== undefined)
      out.set(m.source.provider, (out.get(m.source.provider) ?? 0) + 1)
  }
  return out
}

describe('replayIndexOf', () => {
  it('equals a fresh scan across growing, rewritten and forked frozen histories', () => {
    const pool = [
      createUserMessage('u'),
      assistant('a'),
      assistant('b'),
      assistant('a', false),
      createUserMessage('v'),
      assistant('c'),
    ]
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('grow', 'extend', 'rewrite', 'fork', 'branch'),
            fc.array(fc.nat(pool.length - 1), { maxLength: 4 }),
          ),
          { maxLength: 12 },
        ),
        (ops) => {
          const head = createUserMessage('head')
          let history: readonly Message[] = Object.freeze([head])
          const seen: (readonly Message[])[] = [history]
          for (const [op, picks] of ops) {
            const extra = picks.map((i) => pool[i]!)
            if (op === 'grow') history = Object.freeze([...history, ...extra])
            else if (op === 'extend') history = extendHistory(history, extra)
            else if (op === 'rewrite') history = Object.freeze([head, ...extra, ...history.slice(1, -1)])
            else if (op === 'branch') history = extendHistory(seen[picks.length % seen.length]!, extra)
            else history = Object.freeze([...seen[picks.length % seen.length]!, ...extra])
            seen.push(history)
            expect(new Map(replayIndexOf(history).providers)).toEqual(scan(history))
          }
          for (const h of seen) expect(new Map(replayIndexOf(h).providers)).toEqual(scan(h))
        },
      ),
    )
  })

  it('never caches a mutable array: later edits are seen', () => {
    const head = createUserMessage('h')
    const history: Message[] = [head, assistant('a')]
    expect(new Map(replayIndexOf(history).providers)).toEqual(new Map([['a', 1]]))
    history[1] = assistant('b')
    expect(new Map(replayIndexOf(history).providers)).toEqual(new Map([['b', 1]]))
    const extended = Object.freeze([...history, assistant('c')])
    expect(new Map(replayIndexOf(extended).providers)).toEqual(
      new Map([
        ['b', 1],
        ['c', 1],
      ]),
    )
  })

  it('never caches a history holding an unfrozen message source', () => {
    const head = createUserMessage('h')
    const source: { kind: 'model'; provider: string; model: string; replayState?: unknown } = {
      kind: 'model',
      provider: 'a',
      model: 'm',
    }
    const loose = { id: 'x', role: 'assistant', content: [], source } as unknown as Message
    const history = Object.freeze([head, loose])
    expect(replayIndexOf(history).providers.size).toBe(0)
    source.replayState = { late: true }
    expect(new Map(replayIndexOf(history).providers)).toEqual(new Map([['a', 1]]))
  })
})

describe('extendHistory / historyBaseOf', () => {
  it('builds a frozen base-plus-additions array and remembers its base', () => {
    const base = Object.freeze([createUserMessage('a')])
    const added = [assistant('p')]
    const next = extendHistory(base, added)
    expect(next).toEqual([...base, ...added])
    expect(Object.isFrozen(next)).toBe(true)
    expect(historyBaseOf(next)).toBe(base)
    expect(historyBaseOf(base)).toBeUndefined()
    expect(historyBaseOf(Object.freeze([...next]))).toBeUndefined()
    added.push(assistant('q'))
    expect(next).toHaveLength(2)
  })

  it('keeps only the direct base alive: extending a history drops its own record', async () => {
    // Without this, every history would pin the one before it, and a session of H steps would retain O(H²) slots.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const message = createUserMessage('a')
    let first: readonly Message[] | undefined = Object.freeze([message])
    const firstRef = new WeakRef(first)
    let second: readonly Message[] | undefined = extendHistory(first, [assistant('p')])
    expect(historyBaseOf(second)).toBe(first)
    const third = extendHistory(second, [createUserMessage('b')])
    expect(historyBaseOf(third)).toBe(second)
    expect(historyBaseOf(second)).toBeUndefined()
    first = undefined
    second = undefined
    // The WeakRef used to observe the collection keeps its target alive until this job ends.
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc()
    expect(firstRef.deref()).toBeUndefined()
    expect(historyBaseOf(third)).toHaveLength(2)
  })

  it('never holds a history through a WeakRef: one extended per turn in a single job retains no earlier arrays', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const history: Message[] = Array.from({ length: 2000 }, (_, i) => createUserMessage(`m${i}`))
    let current: readonly Message[] = Object.freeze(history)
    gc()
    const before = process.memoryUsage().heapUsed
    // No macrotask in between, as turns run back to back: each earlier array must become garbage at once.
    for (let i = 0; i < 200; i++) current = extendHistory(current, [assistant(`t${i}`)])
    gc()
    const grown = process.memoryUsage().heapUsed - before
    // 200 arrays of ~2,000 slots would be over 3 MB; what remains is the last two arrays and the new messages.
    expect(grown).toBeLessThan(1_000_000)
    expect(current).toHaveLength(2200)
  })

  it('extendsHistory is true only for a prefix, and for every earlier array of an unbranched chain', () => {
    const pool = [createUserMessage('u'), assistant('a'), createUserMessage('v')]
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(40), fc.array(fc.nat(pool.length - 1), { maxLength: 3 })), { maxLength: 25 }),
        (ops) => {
          const seen: (readonly Message[])[] = [Object.freeze([createUserMessage('head')])]
          for (const [pick, extra] of ops) {
            const base = seen[pick % seen.length]!
            seen.push(
              extendHistory(
                base,
                extra.map((i) => pool[i]!),
              ),
            )
          }
          const isPrefix = (a: readonly Message[], b: readonly Message[]) =>
            b.length <= a.length && b.every((m, i) => a[i] === m)
          for (const a of seen)
            for (const b of seen) {
              if (extendsHistory(a, b)) expect(isPrefix(a, b)).toBe(true)
              const chain = historyChainOf(a)
              if (chain !== undefined && chain === historyChainOf(b)) {
                const [short, long] = a.length <= b.length ? [a, b] : [b, a]
                expect(isPrefix(long, short)).toBe(true)
              }
            }
        },
      ),
    )
    // A chain extended only at its latest array: every array knows every earlier one, however many lie between.
    const line: (readonly Message[])[] = [Object.freeze([createUserMessage('0')])]
    for (let i = 1; i < 6; i++) line.push(extendHistory(line.at(-1)!, i % 2 === 0 ? [] : [assistant(`${i}`)]))
    for (let i = 0; i < line.length; i++)
      for (let j = 0; j <= i; j++) expect(extendsHistory(line[i]!, line[j]!)).toBe(true)
    expect(extendsHistory(line[1]!, line[3]!)).toBe(false)
    expect(historyChainOf(Object.freeze([...line[5]!]))).toBeUndefined()
  })

  it('a branch from an earlier array starts a new chain', () => {
    const first = Object.freeze([createUserMessage('a')])
    const second = extendHistory(first, [assistant('p')])
    const third = extendHistory(second, [createUserMessage('b')])
    const branch = extendHistory(second, [createUserMessage('c')])
    expect(historyChainOf(branch)).not.toBe(historyChainOf(third))
    expect(extendsHistory(branch, third)).toBe(false)
    expect(extendsHistory(third, branch)).toBe(false)
    expect(extendsHistory(branch, second)).toBe(true)
  })

  it('refuses a mutable base', () => {
    expect(() => extendHistory([createUserMessage('a')], [])).toThrow(
      new TypeError('extendHistory needs a frozen base history'),
    )
  })
})
