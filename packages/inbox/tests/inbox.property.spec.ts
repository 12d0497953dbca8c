import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Inbox, type InboxTarget } from '@bridle/inbox'
import type { UserMessage } from '@bridle/llm'
import { msg, setup, text } from './helpers.js'

type Op =
  | { op: 'splice'; target: InboxTarget; start: number; deleteCount: number; count: number }
  | { op: 'remove'; pick: number }
  | { op: 'replace'; pick: number; keepId: boolean }
  | { op: 'clear' }
  | { op: 'claim'; target: InboxTarget }
  | { op: 'duplicate'; pick: number; target: InboxTarget }

const target = fc.constantFrom<InboxTarget>('next-turn', 'next-step')
const coordinate = fc.oneof(fc.integer({ min: -6, max: 6 }), fc.constantFrom(NaN, Infinity, -Infinity, 1.7, -2.5))
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('splice' as const),
    target,
    start: coordinate,
    deleteCount: coordinate,
    count: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ op: fc.constant('remove' as const), pick: fc.nat(10) }),
  fc.record({ op: fc.constant('replace' as const), pick: fc.nat(10), keepId: fc.boolean() }),
  fc.constant({ op: 'clear' as const }),
  fc.record({ op: fc.constant('claim' as const), target }),
  fc.record({ op: fc.constant('duplicate' as const), pick: fc.nat(10), target }),
)

describe('Inbox invariants (fast-check)', () => {
  it('matches an Array.prototype.splice model, keeps ids unique, and replays to the live state', () => {
    let n = 0
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
        const { session, inbox } = setup(`p${n++}`)
        const model: Record<InboxTarget, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
        const all = () => [...model['next-turn'], ...model['next-step']]
        for (const o of ops) {
          switch (o.op) {
            case 'splice': {
              const inserted = Array.from({ length: o.count }, (_, i) => msg(`m${i}`))
              const removed = inbox.splice(o.target, o.start, o.deleteCount, inserted)
              const expected = model[o.target].splice(o.start, o.deleteCount, ...inserted)
              expect(removed.map((m) => m.id)).toEqual(expected.map((m) => m.id))
              break
            }
            case 'remove': {
              const victim = all()[o.pick]
              const id = victim?.id ?? msg('ghost').id
              expect(inbox.remove(id)).toBe(victim !== undefined)
              if (victim) for (const l of Object.values(model)) if (l.includes(victim)) l.splice(l.indexOf(victim), 1)
              break
            }
            case 'replace': {
              const victim = all()[o.pick]
              if (!victim) break
              const next = o.keepId ? { ...msg('r'), id: victim.id } : msg('r')
              expect(inbox.replace(victim.id, next)).toBe(true)
              for (const l of Object.values(model)) if (l.includes(victim)) l.splice(l.indexOf(victim), 1, next)
              break
            }
            case 'clear':
              inbox.clear()
              model['next-turn'] = []
              model['next-step'] = []
              break
            case 'claim': {
              const batch = inbox.claim(o.target, 1)
              const expected = [...model['next-step']]
              model['next-step'] = []
              if (o.target === 'next-turn' && model['next-turn'].length > 0) expected.push(model['next-turn'].shift()!)
              expect(batch.map((m) => m.id)).toEqual(expected.map((m) => m.id))
              break
            }
            case 'duplicate': {
              const victim = all()[o.pick]
              if (!victim) break
              const before = session.events.length
              expect(() => inbox.append(o.target, victim)).toThrow(`message "${victim.id}" is already pending`)
              expect(session.events.length).toBe(before)
              break
            }
          }
          expect(inbox.nextTurn.map((m) => m.id)).toEqual(model['next-turn'].map((m) => m.id))
          expect(inbox.nextStep.map((m) => m.id)).toEqual(model['next-step'].map((m) => m.id))
          const ids = [...inbox.nextTurn, ...inbox.nextStep].map((m) => m.id)
          expect(new Set(ids).size).toBe(ids.length)
        }
        const replayed = new Inbox(session, { inserted() {}, discarded() {}, claimed() {} })
        expect(replayed.nextTurn.map(text)).toEqual(inbox.nextTurn.map(text))
        expect(replayed.nextStep.map((m) => m.id)).toEqual(inbox.nextStep.map((m) => m.id))
        for (const e of session.events) {
          const d = e.data as { removedCount?: number; outcome?: string; inserted: unknown[] }
          if ('removedCount' in d) expect(d.removedCount).toBeGreaterThan(0)
          if (d.outcome !== undefined) expect(d.removedCount).toBeGreaterThan(0)
        }
      }),
      { numRuns: 150 },
    )
  })
})
