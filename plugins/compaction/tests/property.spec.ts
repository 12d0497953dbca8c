/**
 * Property (fast-check, with the repository's fixed seed from tests/support/fast-check-seed.ts): for random sequences
 * of turns (with 0–3 tool rounds and random sizes), manual compactions, failing summaries, runtime-context changes
 * and fresh agents over the log (the resume path), with automatic compactions wherever the random window makes them
 * due:
 * - `deriveMessages()` equals the surface the checkpoints imply — every append in log order, each checkpoint in place
 *   of exactly the nodes it cites (which must be a contiguous run) — message for message, as the same objects;
 * - each checkpoint replaced exactly the messages its summary request carried (before the instruction);
 * - every request the model received is what the log reconstructs for its step, and every digest verifies.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Agent } from '@bridle/agent-loop'
import type { GenerateOptions, Message } from '@bridle/llm'
import {
  deriveEventMessage,
  isSurfaceEligibleType,
  reconstructRequest,
  verifyDigests,
  type AnySessionEvent,
  type CompactionRequestRecord,
  type RequestDigestRecord,
} from '@bridle/session'
import { bootApp, callTool, captureWarnings, fail, filler, say, user } from './harness.js'

const warnings = captureWarnings()

type Op =
  | { kind: 'turn'; rounds: number; chars: number }
  | { kind: 'compact' }
  | { kind: 'fail-next-summary' }
  | { kind: 'context'; text: string }
  | { kind: 'reseed' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      rounds: fc.nat(3),
      chars: fc.integer({ min: 20, max: 700 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'compact' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'fail-next-summary' }) },
  { weight: 1, arbitrary: fc.constantFrom('ro', 'rw', '').map<Op>((text) => ({ kind: 'context', text })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'reseed' }) },
)

/** The surface as the checkpoints' citations describe it, built without the session's surface planner. */
function impliedSurface(events: readonly AnySessionEvent[]): number[] {
  let nodes: number[] = []
  for (const e of events) {
    if (!isSurfaceEligibleType(e.type) || e.surfaceOp === undefined) continue
    if (e.surfaceOp === 'append') {
      nodes.push(e.seq)
      continue
    }
    const cited = new Set(e.sourceEventSeqs)
    const at = nodes.findIndex((s) => cited.has(s))
    const run = nodes.filter((s) => cited.has(s))
    // the cited nodes are one contiguous run of the surface
    expect(nodes.slice(at, at + run.length)).toEqual(run)
    nodes = nodes.filter((s) => !cited.has(s))
    nodes.splice(at, 0, e.seq)
  }
  return nodes
}

const sent = (r: GenerateOptions) => {
  const { signal: _signal, sessionId: _id, purpose: _purpose, ...rest } = r
  return JSON.parse(JSON.stringify(rest))
}

interface Tally {
  threshold: number
  manual: number
  replaced: number
}

async function run(ops: readonly Op[], window: number, tally: Tally): Promise<void> {
  const app = bootApp({ contextWindow: window, compaction: { threshold: 0.7, lowWater: 0.35, summaryMaxTokens: 60 } })
  let context = ''
  app.ctx.systemPrompt.context({ name: 'mode', order: 0, text: () => context })
  app.ctx.tools.register({
    name: 'read',
    description: 'reads',
    parameters: { type: 'object', properties: {} },
    execute: () => filler('contents', 300),
  })
  let agent: Agent = app.agent()
  let n = 0
  for (const op of ops) {
    switch (op.kind) {
      case 'turn':
        n++
        for (let r = 0; r < op.rounds; r++) app.answers.push(callTool(`c${n}-${r}`, 'read'))
        app.answers.push(say(filler(`answer ${n}`, op.chars)))
        agent.followup(user(filler(`prompt ${n}`, op.chars)))
        await agent.whenIdle()
        break
      case 'compact':
        await agent.compact()
        break
      case 'fail-next-summary':
        app.summaries.push(fail('SERVER'))
        break
      case 'context':
        context = op.text && `mode: ${op.text}`
        break
      case 'reseed': {
        const seed = agent.session.events
        await agent.dispose()
        agent = app.agent({ seed })
        break
      }
    }
  }
  await agent.whenIdle()
  const events = agent.session.events

  // deriveMessages() is the implied surface, as the same objects
  const implied = impliedSurface(events)
    .map((seq) => deriveEventMessage(events[seq]!))
    .filter((m): m is Message => m !== null)
  const derived = agent.session.deriveMessages()
  expect(derived.length).toBe(implied.length)
  derived.forEach((m, i) => expect(m).toBe(implied[i]))

  // every request the model received is what its step reconstructs to; digests pair with requests in order
  const digests = events.filter((e) => e.type === 'request/digest')
  expect(digests.length).toBe(app.requests.length)
  digests.forEach((d, i) => {
    const record = d.data as RequestDigestRecord
    const rebuilt = reconstructRequest(events.slice(0, d.seq), { turn: record.turn, step: record.step })
    expect(rebuilt.purpose).toBe(record.purpose)
    expect(JSON.parse(JSON.stringify(rebuilt.request))).toEqual(sent(app.requests[i]!))
  })
  expect(verifyDigests(events).filter((v) => !v.ok)).toEqual([])

  // each checkpoint replaced exactly the messages its summary request carried
  for (const e of events) {
    if (e.type !== 'request/compaction') continue
    const record = e.data as CompactionRequestRecord
    const checkpoint = events.find(
      (c) =>
        c.seq > e.seq &&
        c.type === 'user/message' &&
        typeof c.surfaceOp === 'object' &&
        c.sourceEventSeqs?.includes(e.seq),
    )
    tally[record.reason]++
    if (checkpoint === undefined) continue // the summary failed: nothing was replaced
    tally.replaced++
    const summaryRequest = app.requests[digests.findIndex((d) => d.seq > e.seq)]!
    const replaced = checkpoint.sourceEventSeqs!.filter((s) => isSurfaceEligibleType(events[s]!.type))
    const messages = replaced.map((s) => deriveEventMessage(events[s]!)).filter((m): m is Message => m !== null)
    expect(messages.length).toBe(record.count)
    expect(summaryRequest.messages.slice(0, -1)).toEqual(messages)
  }
  await agent.dispose()
}

describe('random turns and compactions (property)', () => {
  it('deriveMessages() is the surface the checkpoints imply, and reconstruction equals what was sent', async () => {
    const tally: Tally = { threshold: 0, manual: 0, replaced: 0 }
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 28 }),
        fc.integer({ min: 1200, max: 5000 }),
        async (ops, window) => {
          await run(ops, window, tally)
          // the only warnings are the failed summaries' (the ones the sequence asked for)
          for (const w of warnings.splice(0))
            expect(w).toMatch(
              /the summary request of turn \d+ step \d+ failed \(SERVER: boom\); the history is unchanged$/,
            )
        },
      ),
      { numRuns: 30 },
    )
    // the sequences exercised both kinds, and most summaries replaced history
    expect(tally.threshold).toBeGreaterThan(20)
    expect(tally.manual).toBeGreaterThan(10)
    expect(tally.replaced).toBeGreaterThan((tally.threshold + tally.manual) / 2)
  })
})
