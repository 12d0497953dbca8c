import { LlmRuntime, type GenerateOptions, type SessionId, type StreamChunk } from '@bridle/llm'
import { runWaterfall } from '@bridle/scope'
import type { Context, Events } from 'cordis'
import type { Session } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { makeApp, type PersistenceDriver } from './driver.js'
import { replay, scriptedAppends } from './fixtures.js'

const appends = scriptedAppends(1)
const never = 1_000_000

/**
 * Runs a waterfall this package's dependencies do not declare (`agent/pre-step`, `tools/execute` belong to packages
 * a backend does not depend on), with a stand-in payload.
 */
const dispatchWaterfall = <R>(ctx: Context, thisArg: undefined, name: string, payload: unknown, fallback: () => R): R =>
  runWaterfall(ctx, thisArg, name as keyof Events, [payload], fallback)

/** The durability checkpoints: flush before each model request, each step and each tool body; they fail closed. */
export function describeCheckpoints<S>(driver: PersistenceDriver<S>): void {
  function setup(checkpoints = true) {
    const app = makeApp(driver, { writeBatchMaxDelayMs: never, checkpoints })
    app.ctx.plugin(LlmRuntime)
    const session = app.ctx.sessions.create('s1')
    replay(session, appends.slice(0, 6))
    const durable = () => driver.storedSeqs(app.store, 's1')
    return { ...app, session, durable }
  }

  describe('durability checkpoints', () => {
    it('llm/stream: the adapter is not reached before every prior event is durable', async () => {
      const { ctx, session, durable } = setup()
      const seenAtDispatch: number[][] = []
      ctx.llm.registerAdapter(['p'], {
        async *stream(): AsyncIterable<StreamChunk> {
          seenAtDispatch.push(await durable())
          yield { type: 'finish', reason: { kind: 'stop' } }
        },
      })
      const stream = ctx.llm.stream({ provider: 'p', model: 'm', messages: [], sessionId: 's1' as SessionId })
      expect(await durable()).toEqual([]) // nothing happens before the first pull
      const chunks: StreamChunk[] = []
      for await (const chunk of stream) chunks.push(chunk)
      expect(chunks).toEqual([{ type: 'finish', reason: { kind: 'stop' } }])
      expect(seenAtDispatch).toEqual([session.events.map((e) => e.seq)])
    })

    it('llm/stream without a live sessionId is passed through untouched', async () => {
      const { ctx, durable } = setup()
      ctx.llm.registerAdapter(['p'], {
        async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
          void options
          yield { type: 'finish', reason: { kind: 'stop' } }
        },
      })
      for await (const _ of ctx.llm.stream({
        provider: 'p',
        model: 'm',
        messages: [],
        sessionId: 'other' as SessionId,
      }))
        void _
      for await (const _ of ctx.llm.stream({ provider: 'p', model: 'm', messages: [] })) void _
      expect(await durable()).toEqual([])
    })

    it('llm/stream fails closed: a failed flush means the adapter never runs', async () => {
      const { ctx, store } = setup()
      const failure = await driver.failNextWrite(store, 's1')
      let dispatched = false
      ctx.llm.registerAdapter(['p'], {
        async *stream(): AsyncIterable<StreamChunk> {
          dispatched = true
          yield { type: 'finish', reason: { kind: 'stop' } }
        },
      })
      const iterate = async () => {
        for await (const _ of ctx.llm.stream({ provider: 'p', model: 'm', messages: [], sessionId: 's1' as SessionId }))
          void _
      }
      await expect(iterate()).rejects.toThrow(failure)
      expect(dispatched).toBe(false)
    })

    it('agent/pre-step: flushes agent.session before the step is decided, and fails closed', async () => {
      const { ctx, store, session, durable } = setup()
      const decide = (s: Session) =>
        dispatchWaterfall(
          ctx,
          undefined,
          'agent/pre-step',
          { agent: { session: s }, messages: [], turn: 1, step: 1 },
          async () => {
            return { kind: 'enter', durable: await durable() }
          },
        )
      expect(await decide(session)).toEqual({ kind: 'enter', durable: session.events.map((e) => e.seq) })
      session.append('turn/start', { turn: 2 })
      const failure = await driver.failNextWrite(store, 's1')
      let ran = false
      await expect(
        dispatchWaterfall(
          ctx,
          undefined,
          'agent/pre-step',
          { agent: { session }, messages: [], turn: 2, step: 1 },
          () => {
            ran = true
          },
        ),
      ).rejects.toThrow(failure)
      expect(ran).toBe(false)
    })

    it('tools/execute: the tool body runs only after its tool/call is durable, and not at all if the flush fails', async () => {
      const { ctx, store, session, durable } = setup()
      replay(session, appends.slice(6, appends.findIndex((a) => a.type === 'tool/call') + 1))
      const callSeq = session.events.at(-1)!.seq
      const exec = { agent: { session }, name: 'read_file' }
      const result = await dispatchWaterfall(ctx, undefined, 'tools/execute', exec, () => durable())
      expect((result as number[]).at(-1)).toBe(callSeq)
      session.append('tool/call', { turn: 1, step: 1, callId: 'x', name: 'read_file', arguments: '{}' })
      const failure = await driver.failNextWrite(store, 's1')
      let bodyRan = false
      await expect(
        dispatchWaterfall(ctx, undefined, 'tools/execute', exec, () => {
          bodyRan = true
        }),
      ).rejects.toThrow(failure)
      expect(bodyRan).toBe(false)
    })

    it('checkpoints: false registers none of them', async () => {
      const { ctx, session, durable } = setup(false)
      expect(
        await dispatchWaterfall(ctx, undefined, 'agent/pre-step', { agent: { session } }, () => durable()),
      ).toEqual([])
      expect(await dispatchWaterfall(ctx, undefined, 'tools/execute', { agent: { session } }, () => durable())).toEqual(
        [],
      )
    })
  })
}
