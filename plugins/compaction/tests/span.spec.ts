import { describe, expect, it } from 'vitest'
import { callId, createAssistantMessage, createToolResultMessage, createUserMessage, type Message } from '@bridle/llm'
import { Session } from '@bridle/session'
import { summarizedCount, TokenEstimator } from '../src/index.js'

const source = { provider: 'p', model: 'm' }
const text = (t: string) => createAssistantMessage({ content: [{ type: 'text', text: t }], source })
const call = (id: string) =>
  createAssistantMessage({ content: [{ type: 'tool-call', id: callId(id), name: 'read', arguments: '{}' }], source })

/** A session of turns; each turn is a list of items: a user prompt, an answer, a tool call or its result. */
function build(turns: (string | { call: string } | { result: string })[][], open = false) {
  const s = Session.create('s')
  turns.forEach((items, i) => {
    const turn = i + 1
    s.append('turn/start', { turn })
    s.append('step/start', { turn, step: 1 })
    items.forEach((item, j) => {
      if (typeof item === 'string') {
        if (j === 0) s.append('user/message', createUserMessage(item), { surfaceOp: 'append' })
        else
          s.append(
            'assistant/message',
            { turn, step: 1, message: text(item) },
            { surfaceOp: 'append', sourceEventSeqs: [] },
          )
      } else if ('call' in item) {
        s.append(
          'assistant/message',
          { turn, step: 1, message: call(item.call) },
          { surfaceOp: 'append', sourceEventSeqs: [] },
        )
      } else {
        const message = createToolResultMessage({ callId: callId(item.result), content: 'r'.repeat(40) })
        s.append('tool/result', { turn, step: 1, message }, { surfaceOp: 'append' })
      }
    })
    if (!open || i < turns.length - 1) s.append('turn/end', { turn, reason: { kind: 'completed' } })
  })
  return s
}

const estimator = new TokenEstimator(1)
const tokens = (messages: readonly Message[]) =>
  messages.reduce((n, m) => n + estimator.tokens(estimator.messageChars(m)), 0)

describe('summarizedCount', () => {
  const turns = [
    ['p1', 'a1'],
    ['p2', 'a2'],
    ['p3', 'a3'],
    ['p4', 'a4'],
  ]

  it('keeps the newest whole turns that fit the budget', () => {
    const s = build(turns, true)
    const messages = s.deriveMessages()
    const twoTurns = tokens(messages.slice(4))
    expect(summarizedCount({ session: s, messages, turn: 4, budget: twoTurns, estimator })).toBe(4)
    expect(summarizedCount({ session: s, messages, turn: 4, budget: twoTurns - 1, estimator })).toBe(6)
    expect(summarizedCount({ session: s, messages, turn: 4, budget: 10_000, estimator })).toBe(2)
  })

  it('summarizes every closed turn when the newest turn is closed and the budget is 0 (a manual compaction)', () => {
    const s = build(turns)
    expect(summarizedCount({ session: s, messages: s.deriveMessages(), turn: 5, budget: 0, estimator })).toBe(8)
  })

  it('cuts inside the open turn only between tool rounds when the turn alone does not fit', () => {
    const s = build(
      [
        ['p1', 'a1'],
        ['p2', { call: 'c1' }, { result: 'c1' }, { call: 'c2' }, { result: 'c2' }],
      ],
      true,
    )
    const messages = s.deriveMessages()
    // budget for the last round only: cut after the first result, never between a call and its result
    const lastRound = tokens(messages.slice(5))
    expect(summarizedCount({ session: s, messages, turn: 2, budget: lastRound, estimator })).toBe(5)
    // nothing fits: keep the last pair-safe group anyway
    expect(summarizedCount({ session: s, messages, turn: 2, budget: 0, estimator })).toBe(5)
    // a budget that fits the open turn keeps it whole
    expect(summarizedCount({ session: s, messages, turn: 2, budget: tokens(messages.slice(2)), estimator })).toBe(2)
  })

  it('has nothing to summarize when only an earlier checkpoint would go', () => {
    // the open turn holds only its prompt, which always stays
    const s = build([['p1', 'a1'], ['p2']], true)
    const nodes = s.surface.nodes
    s.append('user/message', createUserMessage('checkpoint'), {
      surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[1]! },
      sourceEventSeqs: [nodes[0]!, nodes[1]!],
    })
    const messages = s.deriveMessages()
    expect(messages).toHaveLength(2)
    expect(summarizedCount({ session: s, messages, turn: 2, budget: 0, estimator })).toBeUndefined()
    // with more after it, the checkpoint goes with the rest (here everything but the open turn's last message)
    const t = build(
      [
        ['p1', 'a1'],
        ['p2', 'a2'],
        ['p3', 'a3'],
      ],
      true,
    )
    const n = t.surface.nodes
    t.append('user/message', createUserMessage('checkpoint'), {
      surfaceOp: { op: 'replace', start: n[0]!, end: n[1]! },
      sourceEventSeqs: [n[0]!, n[1]!],
    })
    expect(summarizedCount({ session: t, messages: t.deriveMessages(), turn: 3, budget: 0, estimator })).toBe(4)
  })

  it("never summarizes prompts alone: the span must hold some of the model's answers", () => {
    const s = build([['p1']], true)
    s.append('user/message', createUserMessage('steering'), { surfaceOp: 'append' })
    expect(summarizedCount({ session: s, messages: s.deriveMessages(), turn: 1, budget: 0, estimator })).toBeUndefined()
  })

  it('refuses messages that are not the session surface', () => {
    const s = build(turns, true)
    expect(() =>
      summarizedCount({ session: s, messages: [createUserMessage('x')], turn: 4, budget: 0, estimator }),
    ).toThrow('the request does not match the session surface')
  })
})
