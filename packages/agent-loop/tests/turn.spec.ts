import { describe, expect, it } from 'vitest'
import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import { boot, callTools, deferred, say, user } from './harness.js'

const chunks = (n: number, ...types: string[]) => (types.length ? types : Array(n).fill('')).map((t) => `S:chunk ${t}`)
const TOOL_CHUNKS = chunks(0, 'block-start', 'tool-call-delta', 'block-end', 'finish')
const SAY_CHUNKS = chunks(0, 'block-start', 'text-delta', 'block-end', 'usage', 'finish')

function registerEcho(h: ReturnType<typeof boot>, name = 'read_file') {
  h.ctx.tools.register({
    name,
    description: 'Echo a path.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    concurrencySafe: true,
    execute: (args: { path?: string }) => `contents of ${args.path ?? '?'}`,
  })
}

describe('turn and step', () => {
  it('a normal turn with one tool call, then a follow-up step, in the exact event order', async () => {
    const h = boot()
    registerEcho(h)
    const agent = h.agent()
    h.trace.length = 0
    h.script.push(callTools({ id: 'c1', name: 'read_file', args: '{"path":"package.json"}' }), say('done'))
    agent.followup(user('m1'))
    // Synchronous up to the first await: the turn and the claim are already durable.
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[m1]',
      'L:inserted m1',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-turn @0 -1',
      'L:claimed m1 1',
    ])
    await agent.whenIdle()
    expect(h.trace.slice(6)).toEqual([
      'S:step/start 1.1',
      'S:user/message m1',
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      ...TOOL_CHUNKS,
      'S:assistant/message 1.1',
      'S:tool/call c1',
      'S:tool/result c1',
      'S:step/end 1.1',
      'S:step/start 1.2',
      'S:request/digest 1.2#1',
      ...SAY_CHUNKS,
      'S:assistant/message 1.2',
      'S:step/end 1.2',
      'S:turn/end 1 completed',
      'L:status idle',
    ])
    expect(agent.status).toBe('idle')
    const second = h.requests[1]!
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(second.messages[2]!.content[0]).toMatchObject({ type: 'tool-result', toolCallId: 'c1' })
    const events = agent.session.events
    const assistant = events.find((e) => e.type === 'assistant/message')!
    const chunkSeqs = events.filter((e) => e.type === 'assistant/chunk' && (e.data as any).step === 1).map((e) => e.seq)
    expect(assistant.sourceEventSeqs).toEqual(chunkSeqs)
    const call = events.find((e) => e.type === 'tool/call')!
    expect(call.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'read_file',
      arguments: '{"path":"package.json"}',
    })
    const result = events.find((e) => e.type === 'tool/result')!
    expect(result.sourceEventSeqs).toEqual([call.seq])
  })

  it('a pending followup runs as the next turn of the same driver', async () => {
    const h = boot()
    const agent = h.agent()
    const gate = deferred()
    h.script.push(async function* (r: GenerateOptions) {
      await gate.promise
      yield* say('one')(r) as StreamChunk[]
    }, say('two'))
    agent.followup(user('a'))
    agent.followup(user('b'))
    gate.resolve()
    await agent.whenIdle()
    const turns = h.trace.filter((t) => t.startsWith('S:turn/') || t.startsWith('L:status'))
    expect(turns).toEqual([
      'L:status running',
      'S:turn/start 1',
      'S:turn/end 1 completed',
      'S:turn/start 2',
      'S:turn/end 2 completed',
      'L:status idle',
    ])
    expect(h.requests[1]!.messages.map((m) => m.content[0]).map((b: any) => b.text)).toEqual(['a', 'one', 'b'])
  })

  it('X6: a steer during the stream gets its own step; turn-stopping is skipped while next-step holds input', async () => {
    const h = boot()
    const agent = h.agent()
    const stopping: number[] = []
    h.ctx.on('agent/turn-stopping', ({ turn }) => {
      stopping.push(turn)
    })
    h.script.push(async function* (r: GenerateOptions) {
      agent.steer(user('s'))
      yield* say('first')(r) as StreamChunk[]
    }, say('second'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(2)
    const last = h.requests[1]!.messages.at(-1)!
    expect((last.content[0] as any).text).toBe('s')
    expect(stopping).toEqual([1])
    expect(h.trace.filter((t) => t.startsWith('S:step/start'))).toEqual(['S:step/start 1.1', 'S:step/start 1.2'])
  })

  it('idle inject only stages; the next prompt claims it first (inbox E3)', async () => {
    const h = boot()
    const agent = h.agent()
    h.trace.length = 0
    agent.inject(user('note'))
    expect(h.trace).toEqual(['S:spliced next-step @0 +[note]', 'L:inserted note'])
    expect(agent.status).toBe('idle')
    h.script.push(say('ok'))
    agent.followup(user('p'))
    expect(h.trace.slice(2)).toEqual([
      'S:spliced next-turn @0 +[p]',
      'L:inserted p',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-step @0 -1',
      'S:spliced next-turn @0 -1',
      'L:claimed note 1',
      'L:claimed p 1',
    ])
    await agent.whenIdle()
    expect(h.trace.filter((t) => t.startsWith('S:user/message'))).toEqual(['S:user/message note', 'S:user/message p'])
  })

  it('an idle steer opens a turn whose first batch contains it', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('ok'))
    agent.steer(user('s'))
    await agent.whenIdle()
    expect(h.trace).toContain('S:user/message s')
    expect(h.trace).toContain('S:turn/end 1 completed')
  })

  it('a removed prompt leaves a turn that claims nothing and completes without a step', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.on('agent/inbox/inserted', ({ message }) => {
      queueMicrotask(() => {})
      void message
    })
    const p = user('p')
    h.ctx.on('agent/status', ({ status }) => {
      if (status === 'running') agent.inbox.remove(p.id)
    })
    h.trace.length = 0
    agent.followup(p)
    await agent.whenIdle()
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[p]',
      'L:inserted p',
      'L:status running',
      'S:spliced next-turn @0 -1 canceled',
      'L:discarded p',
      'S:turn/start 1',
      'S:turn/end 1 completed',
      'L:status idle',
    ])
    expect(h.requests).toHaveLength(0)
  })
})
