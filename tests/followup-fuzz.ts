/**
 * The followup fuzz probe shared by `json-limits.spec.ts` (bounded) and `json-limits.stress.ts` (full size): one
 * agent per sequence receives followups, valid or not (nested around the JSON depth limit, not JSON at all). A
 * rejected followup must leave the log, the inbox and the agent's status exactly as they were; an accepted one must
 * run its turn to the end.
 */
import { MAX_JSON_DEPTH, type UserMessage } from '@bridle/llm'
import fc from 'fast-check'
import { expect } from 'vitest'
import { boot, say, user } from '../packages/agent-loop/tests/harness.js'

/** An array nested `levels` deep around `leaf`: `nested(2, 1)` is `[[1]]`. */
export function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

/** A user message (not built by `createUserMessage`, so only the inbox and the session check it) carrying `data`. */
export function rawMessage(id: string, data: unknown): UserMessage {
  return {
    id,
    role: 'user',
    content: [{ type: 'text', text: 'see data', data }],
    source: { kind: 'user' },
  } as unknown as UserMessage
}

/** What one fuzz run tried. */
export interface FollowupFuzzFigures {
  sequences: number
  followups: number
  turns: number
  rejected: number
}

/** Runs `runs` random followup sequences (seeded), each on a fresh agent. */
export async function followupFuzz(runs: number, seed: number): Promise<FollowupFuzzFigures> {
  const figures: FollowupFuzzFigures = { sequences: 0, followups: 0, turns: 0, rejected: 0 }
  const bad = fc.oneof(
    fc.integer({ min: MAX_JSON_DEPTH - 10, max: MAX_JSON_DEPTH + 40 }).map((n) => ({ deep: n, data: nested(n) })),
    fc.constantFrom<unknown>(NaN, undefined, 2n, new Map()).map((data) => ({ deep: 0, data })),
  )
  const step = fc.oneof(
    fc.string({ maxLength: 20 }).map((text) => ({ ok: text })),
    bad.map((b) => ({ bad: b })),
  )
  let id = 0
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
      figures.sequences++
      const h = boot()
      const agent = h.agent()
      for (const s of steps) {
        figures.followups++
        const before = { seq: agent.session.seq, events: agent.session.events, pending: agent.inbox.hasPending }
        if ('ok' in s) {
          h.script.push(say(`re: ${s.ok}`))
          agent.followup(user(s.ok || 'empty'))
          await agent.whenIdle()
          figures.turns++
          expect(agent.session.events.at(-1)!.type).toBe('turn/end')
          continue
        }
        let error: unknown
        try {
          agent.followup(rawMessage(`m${++id}`, s.bad.data))
        } catch (e) {
          error = e
        }
        // The data array sits 5 levels below the splice record (record, inserted, message, content, block).
        if (s.bad.deep > 0 && s.bad.deep + 5 <= MAX_JSON_DEPTH) {
          expect(error).toBeUndefined()
          h.script.push(say('ok'))
          await agent.whenIdle()
          figures.turns++
          continue
        }
        figures.rejected++
        expect(error).toBeInstanceOf(Error)
        expect({ seq: agent.session.seq, events: agent.session.events, pending: agent.inbox.hasPending }).toEqual(
          before,
        )
        expect(agent.session.events).toBe(before.events)
        expect(agent.status).toBe('idle')
      }
      await agent.dispose()
    }),
    { seed, numRuns: runs },
  )
  return figures
}
