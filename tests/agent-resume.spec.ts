/** Resume and seeded logs: turn numbering continues and the first request of the new instance logs `resume`. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionJsonl, teardownsSettled } from '@bridle/session-jsonl'
import { reconstructRequest, verifyDigests } from '@bridle/session'
import { boot, say, user } from '../packages/agent-loop/tests/harness.js'

const dirs: string[] = []
/** Persistence plugins a test started, stopped before their folders go (a late write-behind batch would race `rm`). */
const stops: { root: string; dispose: () => unknown }[] = []
afterEach(async () => {
  for (const { root, dispose } of stops.splice(0)) {
    dispose()
    await teardownsSettled(root)
  }
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

/**
 * A first app writes one turn of `options.sessionId` under `root` and stops: its agent and then its persistence are
 * disposed, as at process exit. A later instance over the same root waits for that teardown (the final flush of the
 * disposed session may still be writing), so what it reads never depends on how fast the disk is.
 */
async function writeOneTurn(root: string, options: { sessionId: string; cwd?: string }): Promise<void> {
  const first = boot()
  const persistence = first.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  await new Promise((r) => setTimeout(r, 0))
  const a = first.agent(options)
  first.script.push(say('one'))
  a.followup(user('p1'))
  await a.whenIdle()
  await a.dispose()
  persistence.dispose()
}

const marks = (trace: string[]) => trace.filter((t) => /turn\/start|request\/header|end-seed/.test(t))

describe('resume', () => {
  it('a fresh instance over a seeded session continues turn numbering and logs request/header resume', async () => {
    const first = boot()
    const a = first.agent()
    first.script.push(say('one'), say('two'))
    a.followup(user('p1'))
    await a.whenIdle()
    a.followup(user('p2'))
    await a.whenIdle()
    const seed = a.session.events

    const second = boot()
    second.trace.length = 0
    const b = second.agent({ seed })
    const starts: string[] = []
    second.ctx.on('agent/session-start', ({ source }) => {
      starts.push(source)
    })
    second.script.push(say('three'))
    b.followup(user('p3'))
    await b.whenIdle()
    expect(b.session.events[seed.length]!.type).toBe('session/end-seed')
    expect(marks(second.trace)).toEqual(['S:turn/start 3', 'S:request/header resume'])
    expect(second.trace.slice(0, 2)).toEqual(['L:created', 'L:session-start startup'])
    // Nothing changed, yet the header is logged again; request/context is not (same route).
    expect(second.trace.filter((t) => t === 'S:request/context')).toEqual([])
    expect(second.requests[0]!.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      'p1',
      'one',
      'p2',
      'two',
      'p3',
    ])
    expect(reconstructRequest(b.session.events, { turn: 3, step: 1 }).headerReason).toBe('resume')
    expect(verifyDigests(b.session.events).every((r) => r.ok)).toBe(true)
  })

  it('X4: resume() over session-jsonl: old events, end-seed, turn 2, header reason resume', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bridle-resume-'))
    dirs.push(root)
    await writeOneTurn(root, { sessionId: 'keep', cwd: '/srv' })

    const second = boot()
    const persistence = second.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    stops.push({ root, dispose: () => persistence.dispose() })
    await new Promise((r) => setTimeout(r, 0))
    const sources: string[] = []
    second.ctx.on('agent/session-start', ({ source }) => {
      sources.push(source)
    })
    const b = await second.ctx.agentLoop.resume('keep', { provider: 'mock', model: 'm1' })
    expect(sources).toEqual(['resume'])
    expect(b.session.header.cwd).toBe('/srv')
    expect(b.inbox.hasPending).toBe(false)
    expect(b.session.events.at(-1)!.type).toBe('session/end-seed')
    second.trace.length = 0
    second.script.push(say('two'))
    b.followup(user('p2'))
    await b.whenIdle()
    expect(marks(second.trace)).toEqual(['S:turn/start 2', 'S:request/header resume'])
    expect(second.requests[0]!.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      'p1',
      'one',
      'p2',
    ])
    await expect(second.ctx.agentLoop.resume('keep')).rejects.toThrow('session "keep" already exists')
    const aborted = new AbortController()
    aborted.abort({ why: 'caller' })
    await expect(second.ctx.agentLoop.resume('other', { signal: aborted.signal })).rejects.toThrow(
      'agent "other" creation aborted',
    )
  })

  it('a configured agent with an exact sessionId resumes it when persistence lists it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bridle-configured-'))
    dirs.push(root)
    await writeOneTurn(root, { sessionId: 'svc' })

    const second = boot({ loop: { agents: [{ id: 'svc-bot', sessionId: 'svc', provider: 'mock', model: 'm1' }] } })
    const sources: string[] = []
    // the configured agent appears once persistence has listed the session: wait for that event, not for a clock
    const started = new Promise<void>((resolve) => {
      second.ctx.on('agent/session-start', ({ source }) => {
        sources.push(source)
        resolve()
      })
    })
    const persistence = second.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    stops.push({ root, dispose: () => persistence.dispose() })
    await started
    const b = second.ctx.agentLoop.get('svc')!
    expect(sources).toEqual(['resume'])
    expect(b.options).toEqual({ provider: 'mock', model: 'm1' })
    second.script.push(say('two'))
    b.followup(user('p2'))
    await b.whenIdle()
    expect(
      b.session.events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn),
    ).toEqual([1, 2])
  })
})
