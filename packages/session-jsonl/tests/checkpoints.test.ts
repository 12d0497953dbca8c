import { existsSync, readFileSync } from 'node:fs'
import { LlmRuntime, type GenerateOptions, type SessionId, type StreamChunk } from '@bridle/llm'
import { waterfall } from '@bridle/scope'
import type { Session } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { FaultyFs } from './fixtures/faulty-fs.js'
import { makeApp, replay, scriptedAppends } from './helpers.js'

const appends = scriptedAppends(1)
const never = 1_000_000

/** The seqs durable in the session's file right now ([] when the file does not exist). */
function durable(path: string): number[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8').split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l).seq as number)
}

function setup(checkpoints = true, fs?: FaultyFs) {
  const app = makeApp({ writeBatchMaxDelayMs: never, checkpoints }, fs)
  app.ctx.plugin(LlmRuntime)
  const session = app.ctx.sessions.create('s1')
  replay(session, appends.slice(0, 6))
  const path = app.persistence.locate(session.header).path
  return { ...app, session, path }
}

const dispatchWaterfall = waterfall as unknown as (ctx: unknown, thisArg: unknown, name: string, payload: unknown, fallback: () => unknown) => unknown

describe('durability checkpoints', () => {
  it('llm/stream: the adapter is not reached before every prior event is durable', async () => {
    const { ctx, session, path } = setup()
    const seenAtDispatch: number[][] = []
    ctx.llm.registerAdapter(['p'], {
      async *stream(): AsyncIterable<StreamChunk> {
        seenAtDispatch.push(durable(path))
        yield { type: 'finish', reason: { kind: 'stop' } }
      },
    })
    const stream = ctx.llm.stream({ provider: 'p', model: 'm', messages: [], sessionId: 's1' as SessionId })
    expect(durable(path)).toEqual([]) // nothing happens before the first pull
    const chunks: StreamChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks).toEqual([{ type: 'finish', reason: { kind: 'stop' } }])
    expect(seenAtDispatch).toEqual([session.events.map((e) => e.seq)])
  })

  it('llm/stream without a live sessionId is passed through untouched', async () => {
    const { ctx, path } = setup()
    ctx.llm.registerAdapter(['p'], {
      async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
        void options
        yield { type: 'finish', reason: { kind: 'stop' } }
      },
    })
    for await (const _ of ctx.llm.stream({ provider: 'p', model: 'm', messages: [], sessionId: 'other' as SessionId })) void _
    for await (const _ of ctx.llm.stream({ provider: 'p', model: 'm', messages: [] })) void _
    expect(durable(path)).toEqual([])
  })

  it('llm/stream fails closed: a failed flush means the adapter never runs', async () => {
    const fs = new FaultyFs().plan({ op: 'link' })
    const { ctx } = setup(true, fs)
    let dispatched = false
    ctx.llm.registerAdapter(['p'], {
      async *stream(): AsyncIterable<StreamChunk> {
        dispatched = true
        yield { type: 'finish', reason: { kind: 'stop' } }
      },
    })
    const iterate = async () => {
      for await (const _ of ctx.llm.stream({ provider: 'p', model: 'm', messages: [], sessionId: 's1' as SessionId })) void _
    }
    await expect(iterate()).rejects.toThrow('injected link failure')
    expect(dispatched).toBe(false)
  })

  it('agent/pre-step: flushes agent.session before the step is decided, and fails closed', async () => {
    const fs = new FaultyFs()
    const { ctx, session, path } = setup(true, fs)
    const decide = (s: Session) =>
      dispatchWaterfall(ctx, undefined, 'agent/pre-step', { agent: { session: s }, messages: [], turn: 1, step: 1 }, () => {
        return { kind: 'enter', durable: durable(path) }
      })
    expect(await decide(session)).toEqual({ kind: 'enter', durable: session.events.map((e) => e.seq) })
    session.append('turn/start', { turn: 2 })
    fs.plan({ op: 'sync', path: /s1\.jsonl$/ })
    let ran = false
    await expect(
      dispatchWaterfall(ctx, undefined, 'agent/pre-step', { agent: { session }, messages: [], turn: 2, step: 1 }, () => {
        ran = true
      }),
    ).rejects.toThrow('injected sync failure')
    expect(ran).toBe(false)
  })

  it('tools/execute: the tool body runs only after its tool/call is durable, and not at all if the flush fails', async () => {
    const fs = new FaultyFs()
    const { ctx, session, path } = setup(true, fs)
    replay(session, appends.slice(6, appends.findIndex((a) => a.type === 'tool/call') + 1))
    const callSeq = session.events.at(-1)!.seq
    const exec = { agent: { session }, name: 'read_file' }
    const result = await dispatchWaterfall(ctx, undefined, 'tools/execute', exec, () => durable(path))
    expect((result as number[]).at(-1)).toBe(callSeq)
    session.append('tool/call', { turn: 1, step: 1, callId: 'x', name: 'read_file', arguments: '{}' })
    fs.plan({ op: 'write', path: /s1\.jsonl$/ })
    let bodyRan = false
    await expect(
      dispatchWaterfall(ctx, undefined, 'tools/execute', exec, () => {
        bodyRan = true
      }),
    ).rejects.toThrow('injected write failure')
    expect(bodyRan).toBe(false)
  })

  it('checkpoints: false registers none of them', async () => {
    const { ctx, session, path } = setup(false)
    const seen = await dispatchWaterfall(ctx, undefined, 'agent/pre-step', { agent: { session } }, () => durable(path))
    expect(seen).toEqual([])
    const tool = await dispatchWaterfall(ctx, undefined, 'tools/execute', { agent: { session } }, () => durable(path))
    expect(tool).toEqual([])
  })
})
