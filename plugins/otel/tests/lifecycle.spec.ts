/**
 * The plugin's life beside running agents: unloading it in mid-turn (a hot reload) ends its spans cleanly and removes
 * its listeners; loading it late catches up on the log without tracing the turn already running; a session that
 * leaves the store in mid-turn ends its spans; a resumed session is traced from the log's state, with its real times.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lifecycleOf } from '@bridle/scope'
import { SessionJsonl } from '@bridle/session-jsonl'
import type { Session } from '@bridle/session'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { OtelTracing } from '../src/index.js'
import { boot, heldAnswer, plain, recorder, say, tick, tracedHarness, user } from './support.js'

const sessionHooks = (ctx: Context) => lifecycleOf(ctx)._hooks['session/event']?.length ?? 0
const disposedHooks = (ctx: Context) => lifecycleOf(ctx)._hooks['session/disposed']?.length ?? 0

const roots: string[] = []
afterEach(async () => {
  for (const dir of roots.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('unloading the plugin (hot reload)', () => {
  it('in mid-turn: ends the open spans at the last event it saw, marked unloaded, and removes its listeners', async () => {
    const h = boot()
    const before = { event: sessionHooks(h.ctx), disposed: disposedHooks(h.ctx) }
    const rec = recorder()
    const plugin = h.ctx.plugin(OtelTracing, { tracerProvider: rec.provider })
    await tick()
    expect(sessionHooks(h.ctx)).toBe(before.event + 1)
    const agent = h.agent()
    const held = heldAnswer('slow answer')
    h.script.push(held.responder)
    agent.followup(user('take your time'))
    await held.dispatched
    const lastSeen = agent.session.events.at(-1)!

    await plugin.dispose()
    expect(sessionHooks(h.ctx)).toBe(before.event)
    expect(disposedHooks(h.ctx)).toBe(before.disposed)
    const spans = plain(rec.spans())
    expect(spans.map((s) => [s.name, s.parent, s.end, s.attributes['bridle.unfinished']])).toEqual([
      ['chat m1', 1, lastSeen.time, 'unloaded'],
      ['invoke_agent', null, lastSeen.time, 'unloaded'],
    ])
    expect(spans.every((s) => s.status.code === 'unset')).toBe(true)
    expect(spans[1]!.attributes['bridle.turn.end_reason']).toBeUndefined()

    // the turn goes on untraced
    held.release()
    await agent.whenIdle()
    h.script.push(say('next'))
    agent.followup(user('again'))
    await agent.whenIdle()
    expect(rec.spans()).toHaveLength(2)
  })

  it('a reloaded plugin skips the turn it loaded into and traces the next, continuing from the log', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    h.script.push(say('one'))
    agent.followup(user('first'))
    await agent.whenIdle()
    const held = heldAnswer('two')
    h.script.push(held.responder)
    agent.followup(user('second'))
    await held.dispatched
    await h.plugin.dispose()
    const reloaded = recorder()
    h.ctx.plugin(OtelTracing, { tracerProvider: reloaded.provider })
    await tick()
    held.release()
    await agent.whenIdle()
    expect(reloaded.spans()).toHaveLength(0)

    h.script.push(say('three'))
    agent.followup(user('third'))
    await agent.whenIdle()
    const spans = plain(reloaded.spans())
    expect(spans.map((s) => [s.name, s.attributes['bridle.turn']])).toEqual([
      ['chat m1', 3],
      ['invoke_agent', 3],
    ])
    // compared with turn 2's request, which it never traced but folded from the log
    expect(spans[0]!.attributes).toMatchObject({
      'bridle.request.header_reason': 'unchanged',
      'bridle.cache.break': 'none',
      'bridle.cache.prefix_messages': 3,
    })
  })
})

describe('sessions', () => {
  it('a session that leaves the store in mid-turn ends its spans, marked disposed', async () => {
    const h = tracedHarness()
    let session!: Session
    const owner = h.ctx.plugin({
      inject: ['sessions'],
      apply(ctx: Context) {
        session = ctx.sessions.create('bare')
      },
    })
    await tick()
    session.append('turn/start', { turn: 1 })
    const last = session.append('step/start', { turn: 1, step: 1 })
    await owner.dispose()
    const spans = plain(h.recorder.spans())
    expect(spans.map((s) => [s.name, s.end, s.attributes['bridle.unfinished']])).toEqual([
      ['invoke_agent', last.time, 'disposed'],
    ])
  })

  it('a resumed session: only the new turns, the header logged for the resume, and the times of the log', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bridle-otel-resume-'))
    roots.push(root)
    const first = tracedHarness()
    first.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    await tick()
    const agent = first.agent({ sessionId: 'resumed' })
    first.script.push(say('before'))
    agent.followup(user('one'))
    await agent.whenIdle()
    await first.ctx.sessions.flush(agent.session)
    await first.ctx.scope.dispose()

    const second = tracedHarness()
    second.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    await tick()
    const again = await second.ctx.agentLoop.resume('resumed', { provider: 'mock', model: 'm1' })
    second.script.push(say('after'))
    again.followup(user('two'))
    await again.whenIdle()
    const spans = plain(second.recorder.spans())
    expect(spans.map((s) => [s.name, s.attributes['bridle.turn']])).toEqual([
      ['chat m1', 2],
      ['invoke_agent', 2],
    ])
    const turnStart = again.session.events.findLast((e) => e.type === 'turn/start')!
    expect(spans[1]!.start).toBe(turnStart.time)
    expect(spans[0]!.attributes).toMatchObject({
      'bridle.request.header_reason': 'resume',
      'bridle.cache.break': 'none',
      'bridle.cache.prefix_messages': 1,
    })
    await second.ctx.scope.dispose()
  })
})
