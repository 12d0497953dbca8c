/**
 * The first request of a resumed or seeded agent continues the digest chain its log records instead of hashing the
 * stored history again. Pinned by counting the messages the loop's digester hashes (it is handed counting proxies;
 * no timing), and by `verifyDigests`, which recomputes every digest from scratch.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SessionJsonl } from '@bridle/session-jsonl'
import type { Message } from '@bridle/llm'
import { verifyDigests, type DigestableRequest, type SessionEvent } from '@bridle/session'
import { boot, say, user } from '../packages/agent-loop/tests/harness.js'

/**
 * Every digester the agent loop constructs, with how many messages it hashed: each request's messages reach it as
 * proxies (one per message, the same every time) that count the reads of their keys, which hashing a message does
 * once.
 */
const digesters = vi.hoisted(() => [] as { hashed: number }[])
vi.mock('@bridle/session', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@bridle/session')>()
  class CountedDigester extends actual.RequestDigester {
    hashed = 0
    private readonly proxies = new WeakMap<object, Message>()
    constructor() {
      super()
      digesters.push(this)
    }
    override digest(request: DigestableRequest, prefix?: { readonly count: number; readonly chain: string }) {
      const messages = request.messages.map((message) => {
        let proxy = this.proxies.get(message)
        if (proxy === undefined) {
          const count = () => void this.hashed++
          proxy = new Proxy(message, {
            ownKeys(target) {
              count()
              return Reflect.ownKeys(target)
            },
          })
          this.proxies.set(message, proxy)
        }
        return proxy
      })
      return super.digest({ ...request, messages }, prefix)
    }
  }
  return { ...actual, RequestDigester: CountedDigester }
})

const dirs: string[] = []
afterEach(async () => {
  digesters.length = 0
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

/** An agent that answered `turns` prompts; returns its log. */
async function recorded(turns: number, options: { sessionId?: string; persistence?: string } = {}) {
  const h = boot()
  if (options.persistence) {
    h.ctx.plugin(SessionJsonl, { root: options.persistence, writeBatchMaxDelayMs: 1 })
    await new Promise((r) => setTimeout(r, 0))
  }
  const agent = h.agent(options.sessionId ? { sessionId: options.sessionId } : {})
  for (let i = 0; i < turns; i++) {
    h.script.push(say(`answer ${i}`))
    agent.followup(user(`prompt ${i}`))
    await agent.whenIdle()
  }
  const events = agent.session.events
  await agent.dispose()
  return events
}

describe('the first request after seed or resume digests only the new messages', () => {
  it('seeded with a recorded log: two message digests for a 41-message request, and every digest verifies', async () => {
    const seed = await recorded(20)
    const h = boot()
    digesters.length = 0
    const agent = h.agent({ seed })
    h.script.push(say('again'))
    agent.followup(user('one more'))
    await agent.whenIdle()
    expect(h.requests[0]!.messages).toHaveLength(41)
    expect(digesters).toHaveLength(1)
    // The log's last digest covers the last request (39 messages); its answer and the new prompt are new.
    expect(digesters[0]!.hashed).toBe(2)
    expect(verifyDigests(agent.session.events).every((r) => r.ok)).toBe(true)
  })

  it('resumed from session-jsonl: the same, through a log read back from disk', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bridle-digest-resume-'))
    dirs.push(root)
    await recorded(20, { sessionId: 'kept', persistence: root })
    const h = boot()
    h.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    await new Promise((r) => setTimeout(r, 0))
    digesters.length = 0
    const agent = await h.ctx.agentLoop.resume('kept', { provider: 'mock', model: 'm1' })
    h.script.push(say('again'))
    agent.followup(user('one more'))
    await agent.whenIdle()
    expect(h.requests[0]!.messages).toHaveLength(41)
    expect(digesters[0]!.hashed).toBe(2)
    expect(verifyDigests(agent.session.events).every((r) => r.ok)).toBe(true)
    await agent.dispose()
  })

  it('a seed without any request/digest is digested in full (nothing recorded to continue from)', async () => {
    const seed = Array.from({ length: 10 }, (_, seq) => ({
      type: 'user/message' as const,
      seq,
      time: 0,
      data: user(`m${seq}`),
      surfaceOp: 'append' as const,
    }))
    const h = boot()
    digesters.length = 0
    const agent = h.agent({ seed })
    h.script.push(say('again'))
    agent.followup(user('one more'))
    await agent.whenIdle()
    expect(digesters[0]!.hashed).toBe(11)
  })

  it('the recorded chain is taken as written: a tampered one carries into the new digest, and verifyDigests flags both', async () => {
    const seed = structuredClone(await recorded(3)) as SessionEvent[]
    const last = seed.findLast((e) => e.type === 'request/digest')! as { data: { messages: { chain: string } } }
    last.data.messages.chain = 'f'.repeat(64)
    const h = boot()
    const agent = h.agent({ seed })
    h.script.push(say('again'))
    agent.followup(user('one more'))
    await agent.whenIdle()
    const results = verifyDigests(agent.session.events)
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false])
    expect(results.at(-1)!.mismatched).toEqual(['messages', 'request'])
  })
})
