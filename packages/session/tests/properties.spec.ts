import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '@bridle/llm'
import {
  Session,
  deriveEventMessage,
  foldRequestHeader,
  foldSurface,
  reconstructRequest,
  RequestDigester,
  requestDigestParts,
  type AnySessionEvent,
  type AppendOptions,
  type EpochHeader,
} from '../src/index.js'
import { assistant, toolResult, user } from './helpers.js'

/** The from-scratch reference: fold the whole log again and project every node. */
function scratch(events: readonly AnySessionEvent[]) {
  const folded = foldSurface(events)
  const messages = folded.nodes.map((seq) => deriveEventMessage(events[seq]!)).filter((m): m is Message => m !== null)
  return { nodes: folded.nodes, messages }
}

type Op =
  | { kind: 'user' }
  | { kind: 'assistant'; empty: boolean }
  | { kind: 'tool' }
  | { kind: 'log' }
  | { kind: 'header'; system: number }
  | {
      kind: 'replace'
      type: 'user' | 'assistant' | 'tool'
      a: number
      b: number
      citeAll: boolean
      emptyAssistant: boolean
    }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'user' }),
  fc.boolean().map<Op>((empty) => ({ kind: 'assistant', empty })),
  fc.constant<Op>({ kind: 'tool' }),
  fc.constant<Op>({ kind: 'log' }),
  fc.nat(3).map<Op>((system) => ({ kind: 'header', system })),
  fc.record({
    kind: fc.constant('replace' as const),
    type: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const),
    a: fc.nat(),
    b: fc.nat(),
    citeAll: fc.boolean(),
    emptyAssistant: fc.boolean(),
  }),
)

/** Applies one op; returns false when the session rejected it (which must then change nothing). */
function apply(s: Session, op: Op, counter: { n: number }): boolean {
  const n = counter.n++
  const nodes = s.surface.nodes
  try {
    switch (op.kind) {
      case 'user':
        s.append('user/message', user(`u${n}`), { surfaceOp: 'append' })
        break
      case 'assistant':
        s.append(
          'assistant/message',
          { turn: 1, step: 1, message: assistant(op.empty ? '' : `a${n}`) },
          { surfaceOp: 'append', sourceEventSeqs: [] },
        )
        break
      case 'tool':
        s.append('tool/result', { turn: 1, step: 1, message: toolResult(`c${n}`, `out${n}`) }, { surfaceOp: 'append' })
        break
      case 'log':
        s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } })
        break
      case 'header':
        s.append('request/header', {
          header: { config: { provider: 'p', model: 'm' }, system: `S${op.system}` },
          reason: 'change',
        })
        break
      case 'replace': {
        // Pick targets from the current nodes, or out-of-range seqs, to exercise both paths.
        const pick = (k: number) => (nodes.length > 0 && k % 5 !== 4 ? nodes[k % nodes.length]! : k)
        const start = pick(op.a)
        const end = pick(op.b)
        const i = nodes.indexOf(start)
        const j = nodes.indexOf(end)
        const shadowed = i >= 0 && j >= i ? nodes.slice(i, j + 1) : [start]
        const sources = op.citeAll ? [...shadowed] : shadowed.slice(1)
        const opts: AppendOptions = {
          surfaceOp: { op: 'replace', start, end },
          ...(sources.length ? { sourceEventSeqs: sources } : {}),
        }
        if (op.type === 'user') s.append('user/message', user(`r${n}`), opts)
        else if (op.type === 'assistant')
          s.append(
            'assistant/message',
            { turn: 1, step: 1, message: assistant(op.emptyAssistant ? '' : `ra${n}`) },
            opts,
          )
        else {
          const target = s.events[start]
          if (target?.type === 'tool/result') {
            const data = target.data
            const message = {
              ...data.message,
              content: [{ ...data.message.content[0], content: [{ type: 'text', text: `[elided ${n}]` }] }],
            }
            s.append('tool/result', { ...data, message } as never, opts)
          } else {
            s.append('tool/result', { turn: 1, step: 1, message: toolResult(`c${n}`, 'x') }, opts)
          }
        }
        break
      }
    }
    return true
  } catch {
    return false
  }
}

describe('property: the incremental views always equal a from-scratch fold', () => {
  it('random appends and replaces: surface, deriveMessages, request header; rejected ops change nothing', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const s = Session.create('s')
        const counter = { n: 0 }
        // The live digester reads only the new tail of an extended history; it must agree with a from-scratch digest.
        const digester = new RequestDigester()
        const seen = new Set<number>()
        for (const op of ops) {
          const before = {
            seq: s.seq,
            nodes: s.surface.nodes,
            generation: s.surface.replaceGeneration,
            messages: s.deriveMessages(),
          }
          const ok = apply(s, op, counter)
          if (!ok) {
            expect(s.seq).toBe(before.seq)
            expect(s.surface.nodes).toBe(before.nodes)
            expect(s.surface.replaceGeneration).toBe(before.generation)
            expect(s.deriveMessages()).toBe(before.messages)
            continue
          }
          const reference = scratch(s.events)
          expect(s.surface.nodes).toEqual(reference.nodes)
          const derived = s.deriveMessages()
          expect(derived.length).toBe(reference.messages.length)
          derived.forEach((m, k) => expect(m).toBe(reference.messages[k]))
          expect(s.requestHeader()).toEqual(foldRequestHeader(s.events))
          for (const seq of reference.nodes) expect(s.surface.has(seq)).toBe(true)
          for (let seq = 0; seq < s.seq; seq++) seen.add(seq)
          for (const seq of seen) expect(s.surface.has(seq)).toBe(reference.nodes.includes(seq))
          const request = { provider: 'p', model: 'm', messages: derived }
          expect(digester.digest(request)).toEqual(requestDigestParts(request))
        }
        // a replay of the same log (the persistence path) derives the same history
        const replay = Session.create('r', s.events as never)
        expect(JSON.stringify(replay.deriveMessages())).toBe(JSON.stringify(s.deriveMessages()))
        expect(replay.surface.replaceGeneration).toBe(s.surface.replaceGeneration)
        // and so does the restore path (fresh values, frozen in place)
        const restored = Session.fromRestore('s', structuredClone(s.events) as never, structuredClone(s.header))
        expect(JSON.stringify(restored.deriveMessages())).toBe(JSON.stringify(s.deriveMessages()))
        expect(restored.surface.nodes).toEqual(replay.surface.nodes)
        expect(restored.events.every((event) => Object.isFrozen(event) && Object.isFrozen(event.data))).toBe(true)
      }),
      { numRuns: 150 },
    )
  })
})

type StepPlan = {
  prompts: number
  headerChange: boolean
  system: number
  toolRound: boolean
  compactBefore: boolean
  aborted: boolean
}

const stepArb: fc.Arbitrary<StepPlan> = fc.record({
  prompts: fc.nat(2),
  headerChange: fc.boolean(),
  system: fc.nat(2),
  toolRound: fc.boolean(),
  compactBefore: fc.boolean(),
  aborted: fc.boolean(),
})

describe('property: reconstructRequest of any step equals what was derivable at that step', () => {
  it('a loop-like producer: compactions, tool rounds, header changes, aborted steps, turns', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(stepArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        (turns) => {
          const s = Session.create('s')
          const expected: {
            turn: number
            step: number
            messages: readonly Message[]
            header: EpochHeader
            dispatched: boolean
          }[] = []
          let n = 0
          turns.forEach((steps, ti) => {
            const turn = ti + 1
            s.append('turn/start', { turn })
            steps.forEach((plan, si) => {
              const step = si + 1
              if (plan.compactBefore && s.surface.nodes.length >= 2) {
                const nodes = s.surface.nodes
                s.append('user/message', user(`summary ${n++}`), {
                  surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[1]! },
                  sourceEventSeqs: [nodes[0]!, nodes[1]!],
                })
              }
              s.append('step/start', { turn, step })
              for (let p = 0; p < plan.prompts; p++)
                s.append('user/message', user(`prompt ${n++}`), { surfaceOp: 'append' })
              const header: EpochHeader = { config: { provider: 'p', model: 'm' }, system: `system ${plan.system}` }
              if (s.requestHeader() === undefined || plan.headerChange) {
                s.append('request/header', { header, reason: s.requestHeader() === undefined ? 'initial' : 'change' })
              }
              s.append('request/context', { provider: 'p', model: 'm' })
              const messages = s.deriveMessages()
              const inForce = s.requestHeader()!
              expected.push({ turn, step, messages, header: inForce, dispatched: !plan.aborted })
              if (plan.aborted) {
                s.append('step/end', { turn, step })
                return
              }
              const chunk = s.append('assistant/chunk', {
                turn,
                step,
                chunk: { type: 'text-delta', index: 0, text: 'x' },
              })
              if (plan.toolRound) {
                const id = `call${n++}`
                s.append(
                  'assistant/message',
                  {
                    turn,
                    step,
                    message: assistant([{ type: 'tool-call', id: id as never, name: 't', arguments: '{}' }]),
                  },
                  { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
                )
                const call = s.append('tool/call', { turn, step, callId: id as never, name: 't', arguments: '{}' })
                s.append(
                  'tool/result',
                  { turn, step, message: toolResult(id, 'done') },
                  { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
                )
              } else {
                s.append(
                  'assistant/message',
                  { turn, step, message: assistant(`answer ${n++}`) },
                  { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
                )
              }
              s.append('step/end', { turn, step })
            })
            s.append('turn/end', { turn, reason: { kind: 'completed' } })
          })

          const stored = JSON.parse(JSON.stringify(s.events)) as AnySessionEvent[]
          for (const want of expected) {
            const live = reconstructRequest(s.events, { turn: want.turn, step: want.step })
            expect(live.messages.length).toBe(want.messages.length)
            live.messages.forEach((m, k) => expect(m).toBe(want.messages[k]))
            expect(live.header).toEqual(want.header)
            expect(live.outputSeq !== undefined).toBe(want.dispatched)
            const expectedRequest = { ...want.header.config, system: want.header.system, messages: want.messages }
            expect(JSON.stringify(live.request)).toBe(JSON.stringify(expectedRequest))
            // the same holds for a reloaded (persisted) copy of the log
            const reloaded = reconstructRequest(stored, { turn: want.turn, step: want.step })
            expect(JSON.stringify(reloaded.request)).toBe(JSON.stringify(expectedRequest))
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})
