/**
 * Which recorded cache plan a rebuilt request carries (`cachePlanIn`), and why the digest separates the plan from the
 * message count.
 */
import type { CachePlan } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import type { AnySessionEvent } from '../src/index.js'
import { assembleDigestParts } from '../src/provability/digest.js'
import { cachePlanIn } from '../src/surface/step-cut.js'

const plan = (reason: string): CachePlan => ({ policy: 'bridle', breakpoints: [{ at: 'tools', ttl: '5m', reason }] })
const event = (seq: number, type: string, data: unknown) => ({ seq, type, data }) as unknown as AnySessionEvent
const cache = (seq: number, turn: number, step: number, p: unknown) =>
  event(seq, 'request/cache', { turn, step, plan: p })

describe('cachePlanIn', () => {
  it('takes the last plan of the step within (stepStart, end), the retry’s', () => {
    const events = [event(0, 'step/start', {}), cache(1, 1, 1, plan('first')), cache(2, 1, 1, plan('retry'))]
    expect(cachePlanIn(events, 0, 3, 1, 1)?.breakpoints[0]?.reason).toBe('retry')
  })

  it('ignores a plan of another turn or step, and a record that is not a plan', () => {
    const events = [
      event(0, 'step/start', {}),
      cache(1, 1, 1, plan('ours')),
      cache(2, 2, 1, plan('other turn')),
      cache(3, 1, 2, plan('other step')),
      cache(4, 1, 1, { policy: 'bridle', breakpoints: [{ at: 'nowhere' }] }),
    ]
    expect(cachePlanIn(events, 0, 5, 1, 1)?.breakpoints[0]?.reason).toBe('ours')
    expect(cachePlanIn(events.slice(0, 1).concat(events.slice(2)), 0, 4, 1, 1)).toBeUndefined()
  })

  it('never reads the event at stepStart itself, nor at or past end', () => {
    const events = [cache(0, 1, 1, plan('at start')), event(1, 'step/start', {}), cache(2, 1, 1, plan('at end'))]
    expect(cachePlanIn(events, 0, 2, 1, 1)).toBeUndefined()
  })
})

describe('assembleDigestParts', () => {
  it('a cache plan is joined after a separator, so a count and a plan cannot run together', () => {
    const a = assembleDigestParts('c', 's', 't', 'h', 1, '2x')
    const b = assembleDigestParts('c', 's', 't', 'h', 12, 'x')
    expect(a.request).not.toBe(b.request)
  })
})
