/**
 * When the tool scheduler classifies and commits (docs/tool-calls.md#the-scheduler): a call's `concurrencySafe`
 * predicate is asked as the call comes up, once, plus once more when it ended a parallel group and heads the next;
 * and a result that is ready at once is committed right after its call starts, not held back behind a slower call
 * started after it.
 */
import { describe, expect, it } from 'vitest'
import { boot, callTools, deferred, say, user } from './harness.js'

const toolLines = (trace: string[]) => trace.filter((t) => t.startsWith('S:tool/'))

describe('classification', () => {
  it('asks concurrencySafe once per call in model order, and again for the call that ended a parallel group', async () => {
    const h = boot()
    const asked: string[] = []
    h.ctx.tools.register({
      name: 'read',
      description: 'reads a path; writes to it are not safe to overlap',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      concurrencySafe: (args: { path: string }) => {
        asked.push(args.path)
        return !args.path.startsWith('/locked')
      },
      execute: (args: { path: string }) => `contents of ${args.path}`,
    })
    const agent = h.agent()
    const read = (id: string, path: string) => ({ id, name: 'read', args: JSON.stringify({ path }) })
    h.script.push(callTools(read('c1', '/a'), read('c2', '/b'), read('c3', '/locked'), read('c4', '/c')), say('ok'))
    agent.followup(user('read them'))
    await agent.whenIdle()
    // c1 heads a parallel group, c2 joins it, c3 ends it and then heads an exclusive group of its own, c4 heads the last
    expect(asked).toEqual(['/a', '/b', '/locked', '/locked', '/c'])
    expect(toolLines(h.trace).filter((t) => t.startsWith('S:tool/result'))).toEqual(
      ['c1', 'c2', 'c3', 'c4'].map((id) => `S:tool/result ${id}`),
    )
  })
})

describe('committing', () => {
  it('a denied call is answered before the next call starts, while that call body is still running', async () => {
    const h = boot()
    const bodyStarted = deferred()
    const release = deferred()
    h.ctx.tools.register({
      name: 'fetch',
      description: 'fetches a URL',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      concurrencySafe: true,
      execute: async (args: { url: string }) => {
        bodyStarted.resolve()
        await release.promise
        return `fetched ${args.url}`
      },
    })
    h.ctx.on('tools/pre-execute', (exec, next) =>
      exec.callId === 'c1' ? { kind: 'deny' as const, reason: 'that host is blocked' } : next(),
    )
    const agent = h.agent()
    h.script.push(
      callTools(
        { id: 'c1', name: 'fetch', args: '{"url":"https://blocked.example"}' },
        { id: 'c2', name: 'fetch', args: '{"url":"https://ok.example"}' },
      ),
      say('done'),
    )
    agent.followup(user('fetch both'))
    await bodyStarted.promise
    expect(toolLines(h.trace)).toEqual(['S:tool/call c1', 'S:tool/result c1', 'S:tool/call c2'])
    release.resolve()
    await agent.whenIdle()
    expect(toolLines(h.trace)).toEqual(['S:tool/call c1', 'S:tool/result c1', 'S:tool/call c2', 'S:tool/result c2'])
    const denied = agent.session.events.find((e) => e.type === 'tool/result')!.data as any
    expect(denied.message.content[0].isError).toBe(true)
  })
})
