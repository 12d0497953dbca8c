import { describe, expect, it } from 'vitest'
import {
  cachePrefixReport,
  readSectionManifest,
  reconstructRequest,
  sha256Hex,
  type SystemSectionRecord,
} from '@bridle/session'
import { boot, say, user } from './harness.js'

type HeaderData = { header: { system?: string }; reason: string; sections?: SystemSectionRecord[] }

const headers = (events: readonly { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === 'request/header').map((e) => e.data as HeaderData)

describe('request/header section manifest', () => {
  it('records which section produced which span, with order, layer and digest; an override is scoped', async () => {
    const h = boot({ systemPrompt: { persona: 'You work for {{model}}.' } })
    h.ctx.systemPrompt.section({ name: 'house:rules', order: 50, text: 'Be brief.' })
    const agent = h.agent()
    agent.ctx.systemPrompt.section({ name: 'house:rules', order: 50, text: 'Be thorough.' })
    h.script.push(say('ok'))
    agent.followup(user('hi'))
    await agent.whenIdle()

    const [logged] = headers(agent.session.events)
    const system = logged!.header.system!
    expect(system).toBe('You are an AI agent powered by Bridle.\n\nYou work for m1.\n\nBe thorough.')
    expect(logged!.sections).toEqual([
      {
        name: 'harness:identity',
        order: -100,
        scope: 'global',
        start: 0,
        end: 38,
        digest: sha256Hex('You are an AI agent powered by Bridle.'),
      },
      {
        name: 'deployment:persona',
        order: 0,
        scope: 'global',
        start: 40,
        end: 56,
        digest: sha256Hex('You work for m1.'),
      },
      { name: 'house:rules', order: 50, scope: 'scoped', start: 58, end: 70, digest: sha256Hex('Be thorough.') },
    ])
    expect(reconstructRequest(agent.session.events, { turn: 1, step: 1 }).sections).toEqual(logged!.sections)
  })

  it('a step whose system string did not change logs no header; a plugin swap logs one whose manifest names the change', async () => {
    const h = boot()
    const first = h.ctx.plugin({
      inject: ['systemPrompt'],
      apply: (ctx) => void ctx.systemPrompt.section({ name: 'plugin:note', order: 10, text: 'Version one.' }),
    })
    const agent = h.agent()
    h.script.push(say('a'), say('b'), say('c'))
    agent.followup(user('one'))
    await agent.whenIdle()
    agent.followup(user('two'))
    await agent.whenIdle()
    first.dispose()
    h.ctx.plugin({
      inject: ['systemPrompt'],
      apply: (ctx) => void ctx.systemPrompt.section({ name: 'plugin:other', order: 5, text: 'Another plugin.' }),
    })
    agent.followup(user('three'))
    await agent.whenIdle()

    expect(headers(agent.session.events).map((d) => [d.reason, d.sections?.map((s) => s.name)])).toEqual([
      ['initial', ['harness:identity', 'plugin:note']],
      ['change', ['harness:identity', 'plugin:other']],
    ])
    const rows = cachePrefixReport(agent.session.events)
    expect(rows[1]!.system).toEqual({ kept: true })
    const broken = rows[2]!.system
    expect(broken?.kept === false && broken.sections).toEqual([
      { kind: 'added', name: 'plugin:other' },
      { kind: 'removed', name: 'plugin:note' },
    ])
  })

  it('a manual compaction that is the first request of a resumed instance logs its header with the manifest', async () => {
    const h = boot({ systemPrompt: { persona: 'You keep notes.' } })
    const first = h.agent()
    h.script.push(say('noted'))
    first.followup(user('remember this'))
    await first.whenIdle()
    const log = first.session.events
    await first.dispose()

    const h2 = boot({ systemPrompt: { persona: 'You keep notes.' } })
    h2.ctx.on('agent/compaction', (_payload, next) => next()) // a policy that finds nothing to compact
    const again = h2.agent({ seed: log })
    expect(await again.compact()).toEqual({ kind: 'skipped', reason: 'the compaction policy found nothing to compact' })
    const logged = headers(again.session.events).at(-1)!
    expect(logged.reason).toBe('resume')
    expect(logged.sections?.map((s) => [s.name, logged.header.system!.slice(s.start, s.end)])).toEqual([
      ['harness:identity', 'You are an AI agent powered by Bridle.'],
      ['deployment:persona', 'You keep notes.'],
    ])
    expect(readSectionManifest(logged.header.system!, logged.sections)).toEqual(logged.sections)
  })
})
