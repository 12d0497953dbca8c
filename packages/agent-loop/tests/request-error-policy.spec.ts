/**
 * Which retry policy `agent/request-error` receives with a failure: a prepared call's own (the registration it was
 * prepared against), an unprepared route's current one (a route an `llm/stream` listener brought up after
 * `prepareCall` found no adapter), and none for a route nothing serves. A listener decides retries from it.
 */
import type { LlmFailure, LlmRetryPolicy } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { boot, fail, say, user, type Harness, type Responder } from './harness.js'

type Seen = { provider: string; failure: LlmFailure; retryPolicy: LlmRetryPolicy | undefined; step: number }

/** Records every `agent/request-error` payload and retries while the policy allows the failure's code. */
function honourPolicy(h: Harness): Seen[] {
  const seen: Seen[] = []
  h.ctx.on('agent/request-error', ({ provider, failure, retryPolicy, step }) => {
    seen.push({ provider, failure, retryPolicy, step })
    if (retryPolicy === undefined || !retryPolicy.retryableCodes.includes(failure.code)) return undefined
    return seen.length <= retryPolicy.maxRetries ? { kind: 'retry' as const } : undefined
  })
  return seen
}

/** An adapter that plays `script` one responder per stream. */
const scriptedAdapter = (requests: string[], script: Responder[], retry: Partial<LlmRetryPolicy>) => ({
  retryPolicy: () => retry,
  async *stream(request: Parameters<Responder>[0]) {
    requests.push(request.provider)
    yield* await script.shift()!(request)
  },
})

const turnEnd = (agent: ReturnType<Harness['agent']>) =>
  (agent.session.events.findLast((e) => e.type === 'turn/end')!.data as { reason: Record<string, any> }).reason

describe('the retry policy agent/request-error receives', () => {
  it('an unprepared route brought up by an llm/stream listener: its own policy, and a retry within it succeeds', async () => {
    const h = boot()
    const requests: string[] = []
    const script = [fail('OVERLOADED', 'busy'), say('fine now')]
    // A lazy loader: the route has no adapter when the first request is prepared; the listener registers it.
    h.ctx.on('llm/stream', (options, next) => {
      if (options.provider === 'lazy' && !h.ctx.llm.hasProvider('lazy')) {
        h.ctx.llm.registerAdapter(['lazy'], scriptedAdapter(requests, script, { retryableCodes: ['OVERLOADED'] }))
      }
      return next()
    })
    const seen = honourPolicy(h)
    const agent = h.agent({ provider: 'lazy', model: 'l1' })
    agent.followup(user('hello'))
    await agent.whenIdle()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ provider: 'lazy', step: 1, failure: { code: 'OVERLOADED', message: 'busy' } })
    expect(seen[0]!.retryPolicy).toMatchObject({ retryableCodes: ['OVERLOADED'], maxRetries: 2 })
    expect(requests).toEqual(['lazy', 'lazy'])
    expect(turnEnd(agent)).toEqual({ kind: 'completed' })
  })

  it('a route nothing serves: no policy, and the turn ends with NO_ADAPTER', async () => {
    const h = boot()
    const seen = honourPolicy(h)
    const agent = h.agent({ provider: 'nowhere', model: 'n1' })
    agent.followup(user('hello'))
    await agent.whenIdle()
    expect(seen).toEqual([
      {
        provider: 'nowhere',
        step: 1,
        retryPolicy: undefined,
        failure: expect.objectContaining({ code: 'NO_ADAPTER' }),
      },
    ])
    expect(turnEnd(agent)).toMatchObject({ kind: 'error', error: { code: 'NO_ADAPTER' } })
  })

  it('a prepared call: judged by the registration it was prepared against, even if the route is re-registered', async () => {
    const h = boot()
    const requests: string[] = []
    const later = scriptedAdapter(requests, [fail('SERVER', 'still down')], { retryableCodes: ['RATE_LIMIT'] })
    const first = scriptedAdapter(requests, [fail('SERVER', 'down')], { retryableCodes: ['SERVER'] })
    let registration = h.ctx.llm.registerAdapter(['flaky'], {
      ...first,
      stream(request) {
        // While this request is in flight the route is handed to an adapter that retries only RATE_LIMIT.
        registration()
        registration = h.ctx.llm.registerAdapter(['flaky'], later)
        return first.stream(request)
      },
    })
    const seen = honourPolicy(h)
    const agent = h.agent({ provider: 'flaky', model: 'f1' })
    agent.followup(user('hello'))
    await agent.whenIdle()
    // the first failure is retried under the first registration's policy; the retry's failure is not, under the new one
    expect(seen.map((s) => [s.failure.message, s.retryPolicy?.retryableCodes])).toEqual([
      ['down', ['SERVER']],
      ['still down', ['RATE_LIMIT']],
    ])
    expect(requests).toEqual(['flaky', 'flaky'])
    expect(turnEnd(agent)).toMatchObject({ kind: 'error', error: { code: 'SERVER', message: 'still down' } })
  })
})
