import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boot, callTools, deferred, say, user } from './harness.js'

describe('tool-call scheduler invariants (fast-check)', () => {
  it('results commit in model order, the pool cap holds, and an exclusive call runs alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        async (safety, cap, picks) => {
          const h = boot({ loop: { maxParallelToolCalls: cap } })
          const waiting: { id: string; release: () => void }[] = []
          let running = 0
          let maxRunning = 0
          const violations: string[] = []
          const exclusiveIds = new Set<string>()
          for (const [name, safe] of [
            ['safe', true],
            ['solo', false],
          ] as const) {
            h.ctx.tools.register({
              name,
              description: name,
              parameters: { type: 'object' },
              concurrencySafe: safe,
              execute: async (_a: unknown, exec: { callId: string }) => {
                running++
                maxRunning = Math.max(maxRunning, running)
                if (!safe && running > 1) violations.push(`${exec.callId} ran beside others`)
                if (safe && [...exclusiveIds].some((id) => waiting.some((w) => w.id === id))) {
                  violations.push(`${exec.callId} ran beside an exclusive call`)
                }
                if (!safe) exclusiveIds.add(exec.callId)
                const gate = deferred()
                waiting.push({ id: exec.callId, release: () => gate.resolve() })
                await gate.promise
                running--
                return exec.callId
              },
            })
          }
          const calls = safety.map((safe, i) => ({ id: `c${i}`, name: safe ? 'safe' : 'solo' }))
          h.script.push(callTools(...calls), say('done'))
          const agent = h.agent()
          agent.followup(user('go'))
          let i = 0
          while (agent.status === 'running') {
            await new Promise((r) => setTimeout(r, 0))
            if (waiting.length > 0) {
              const [next] = waiting.splice(picks[i++ % picks.length]! % waiting.length, 1)
              next!.release()
            }
          }
          await agent.whenIdle()
          const events = agent.session.events
          const results = events
            .filter((e) => e.type === 'tool/result')
            .map((e) => (e.data as any).message.source.callId)
          expect(results).toEqual(calls.map((c) => c.id))
          for (const c of calls) {
            const callSeq = events.find((e) => e.type === 'tool/call' && (e.data as any).callId === c.id)!.seq
            const resultSeq = events.find(
              (e) => e.type === 'tool/result' && (e.data as any).message.source.callId === c.id,
            )!.seq
            expect(callSeq).toBeLessThan(resultSeq)
            if (c.name === 'solo') {
              const earlier = events.filter((e) => e.type === 'tool/result' && e.seq < callSeq).length
              expect(earlier).toBe(calls.indexOf(c))
            }
          }
          expect(maxRunning).toBeLessThanOrEqual(cap)
          expect(violations).toEqual([])
          expect(events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
        },
      ),
      { numRuns: 25 },
    )
  })
})
