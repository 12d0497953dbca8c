import { createUserMessage } from '@bridle/llm'
import {
  TOOL_ABORTED,
  TOOL_ABORTED_BEFORE_DISPATCH,
  type ToolExecutionResult,
  type ToolRunContext,
} from '@bridle/tools'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { agent, call, deferred, direct, setup } from './helpers.js'

const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text
const beforeDispatch = {
  content: [{ type: 'text', text: 'Error: tool call aborted before dispatch' }],
  isError: true,
  error: {
    message: 'tool call aborted before dispatch',
    info: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
  },
}

describe('constants', () => {
  it('match the spec', () => {
    expect(TOOL_ABORTED).toBe('ABORTED')
    expect(TOOL_ABORTED_BEFORE_DISPATCH).toBe('ABORTED_BEFORE_DISPATCH')
  })
})

describe('cancellation', () => {
  it('an already-aborted signal gives ABORTED_BEFORE_DISPATCH without any hook but tools/result', async () => {
    const { root, tools } = setup()
    const body = vi.fn(() => 'x')
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: body })
    const hooks: string[] = []
    root.on('tools/pre-execute', (_e, next) => (hooks.push('pre'), next()))
    root.on('tools/post-execute', (_e, _r, next) => (hooks.push('post'), next()))
    root.on('tools/result', () => void hooks.push('result'))
    const controller = new AbortController()
    controller.abort()
    expect(await tools.execute(call('t', '', { signal: controller.signal }))).toEqual(beforeDispatch)
    expect(hooks).toEqual(['result'])
    expect(body).not.toHaveBeenCalled()
  })
  it('aborted during pre-execute: ABORTED_BEFORE_DISPATCH, body skipped, post-execute runs', async () => {
    const { root, tools } = setup()
    const body = vi.fn(() => 'x')
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: body })
    const controller = new AbortController()
    root.on('tools/pre-execute', (_e, next) => (controller.abort(), next()))
    const post = vi.fn((_e, _r, next) => next())
    root.on('tools/post-execute', post)
    const prepared = await tools.prepare(call('t', '', { signal: controller.signal }))
    expect(prepared.stage).toBe('post')
    expect(await prepared.finalize()).toEqual(beforeDispatch)
    expect(post).toHaveBeenCalledOnce()
    expect(body).not.toHaveBeenCalled()
  })
  it('aborted while a body runs and it then succeeds: ABORTED, contexts kept, no conclusion', async () => {
    const { tools } = setup()
    const controller = new AbortController()
    const note = createUserMessage('ctx', { kind: 'plugin', plugin: 'test' })
    tools.register({
      name: 't',
      description: '',
      parameters: z.object({}),
      execute: (_a, exec) => {
        exec.deferContext(note)
        exec.concludeTurn()
        controller.abort({ kind: 'user' })
        return 'done anyway'
      },
    })
    expect(await tools.execute(call('t', '', { signal: controller.signal }))).toEqual({
      content: [{ type: 'text', text: 'Error: tool call aborted' }],
      isError: true,
      error: { message: 'tool call aborted', info: { name: 'AbortError', code: 'ABORTED' } },
      additionalContexts: [note],
    })
  })
  it('a body that fails after the abort keeps its own error', async () => {
    const { tools } = setup()
    const controller = new AbortController()
    tools.register({
      name: 't',
      description: '',
      parameters: z.object({}),
      execute: (_a, exec) => {
        controller.abort()
        exec.signal.throwIfAborted()
        return 'unreachable'
      },
    })
    expect((await tools.execute(call('t', '', { signal: controller.signal }))).error!.message).toBe(
      'This operation was aborted',
    )
  })
  it('a tools/execute wrapper that short-circuits before an abort gives ABORTED_BEFORE_DISPATCH', async () => {
    const { root, tools } = setup()
    const controller = new AbortController()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => 'body' })
    root.on('tools/execute', () => (controller.abort(), 'cached'))
    expect(await tools.execute(call('t', '', { signal: controller.signal }))).toEqual(beforeDispatch)
  })
  it('post-execute runs after the body even when the turn was cancelled, then the override applies', async () => {
    const { root, tools } = setup()
    const controller = new AbortController()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => (controller.abort(), 'x') })
    const extra = createUserMessage('post ctx', { kind: 'plugin', plugin: 'test' })
    root.on('tools/post-execute', () => ({ kind: 'accept' as const, additionalContexts: [extra] }))
    const r = await tools.execute(call('t', '', { signal: controller.signal }))
    expect(r.error!.info!.code).toBe('ABORTED')
    expect(r.additionalContexts).toEqual([extra])
  })
})

describe('staged form', () => {
  it('reports the stage each path ends in', async () => {
    const { root, tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({ ok: z.boolean() }), execute: () => 'x' })
    root.on('tools/pre-execute', (exec, next) => {
      const args = exec.arguments as { ok: boolean }
      if (!args.ok) return { kind: 'deny' as const, reason: 'not ok' }
      return next()
    })
    expect((await tools.prepare(call('ghost', ''))).stage).toBe('final')
    expect((await tools.prepare(call('t', '{}'))).stage).toBe('final')
    expect((await tools.prepare(call('t', '{"ok":false}'))).stage).toBe('post')
    expect((await tools.prepare(call('t', '{"ok":true}'))).stage).toBe('dispatch')
  })
  it('a pre-execute throw ends in final; exec.arguments is undefined when arguments were invalid', async () => {
    const { root, tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({ n: z.number() }), execute: () => 'x' })
    const bad = await tools.prepare(call('t', '{"n":"1"}'))
    expect(bad.execution.arguments).toBeUndefined()
    root.on('tools/pre-execute', () => {
      throw new Error('x')
    })
    expect((await tools.prepare(call('t', '{"n":1}'))).stage).toBe('final')
  })
  it('misuse of dispatch/finalize rejects (internal failures), tool errors never do', async () => {
    const { tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => 'x' })
    const final = await tools.prepare(call('ghost', ''))
    await expect(final.dispatch()).rejects.toThrow('is not in the dispatch stage (stage final)')
    const p = await tools.prepare(call('t', ''))
    await expect(p.finalize()).rejects.toThrow('must be dispatched and settled before finalize()')
    await p.dispatch()
    await expect(p.dispatch()).rejects.toThrow('was already dispatched')
    expect(text(await p.finalize())).toBe('x')
    await expect(p.finalize()).rejects.toThrow('was already finalized')
  })
  it('a second finalize() while the first is still in post-execute rejects; post-execute and tools/result run once', async () => {
    const { root, tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => 'x' })
    const gate = deferred()
    const post = vi.fn(async (_e: unknown, _r: unknown, next: () => Promise<unknown>) => (await gate.promise, next()))
    root.on('tools/post-execute', post as never)
    const results = vi.fn()
    root.on('tools/result', results)
    const p = await tools.prepare(call('t', ''))
    await p.dispatch()
    const first = p.finalize()
    const second = p.finalize()
    gate.resolve()
    await expect(second).rejects.toThrow('was already finalized')
    expect(text(await first)).toBe('x')
    expect(post).toHaveBeenCalledOnce()
    expect(results).toHaveBeenCalledOnce()
  })
  it('deferContext after finalize() began throws instead of silently dropping the context', async () => {
    const { root, tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => 'x' })
    const late = createUserMessage('late', { kind: 'plugin', plugin: 'test' })
    let thrown: unknown
    root.on('tools/post-execute', (exec, _r, next) => {
      try {
        ;(exec as ToolRunContext).deferContext(late)
      } catch (e) {
        thrown = e
      }
      return next()
    })
    const result = await tools.execute(call('t', ''))
    expect(String(thrown)).toContain('deferContext is too late')
    expect(result.additionalContexts).toBeUndefined()
  })
  it('pre-execute of prepared calls runs in the order prepare() is called, bodies overlap, results as finalized', async () => {
    const { root, tools } = setup()
    const gates = [deferred<string>(), deferred<string>()]
    const order: string[] = []
    tools.register({
      name: 'slow',
      description: '',
      parameters: z.object({ i: z.number() }),
      concurrencySafe: true,
      execute: async ({ i }) => gates[i]!.promise,
    })
    root.on('tools/pre-execute', (exec, next) => (order.push(`pre ${(exec.arguments as { i: number }).i}`), next()))
    const p0 = await tools.prepare(call('slow', '{"i":0}'))
    const p1 = await tools.prepare(call('slow', '{"i":1}'))
    const d0 = p0.dispatch().then(() => order.push('settled 0'))
    const d1 = p1.dispatch().then(() => order.push('settled 1'))
    gates[1]!.resolve('second')
    await d1
    gates[0]!.resolve('first')
    await d0
    expect(order).toEqual(['pre 0', 'pre 1', 'settled 1', 'settled 0'])
    expect(text(await p0.finalize())).toBe('first')
    expect(text(await p1.finalize())).toBe('second')
  })
})

describe('executionMode', () => {
  it('is parallel only for a visible tool with valid arguments and a true flag or predicate', () => {
    const { root, tools } = setup()
    const a = agent(root, 'a')
    const b = agent(root, 'b')
    tools.register({
      name: 'safe',
      description: '',
      parameters: z.object({ p: z.string() }),
      concurrencySafe: true,
      execute: () => '',
    })
    tools.register({ name: 'plain', description: '', parameters: z.object({}), execute: () => '' })
    tools.register({
      name: 'off',
      description: '',
      parameters: z.object({}),
      concurrencySafe: false,
      execute: () => '',
    })
    tools.register({
      name: 'pred',
      description: '',
      parameters: z.object({ mode: z.string() }),
      concurrencySafe: (args: { mode: string }) =>
        args.mode === 'read'
          ? true
          : args.mode === 'truthy'
            ? (1 as never)
            : args.mode === 'throw'
              ? (() => {
                  throw new Error('x')
                })()
              : false,
      execute: () => '',
    })
    a.scope.ctx.tools.register({
      name: 'scoped',
      description: '',
      parameters: z.object({}),
      concurrencySafe: true,
      execute: () => '',
    })

    expect(tools.executionMode(call('safe', '{"p":"x"}'))).toBe('parallel')
    expect(tools.executionMode(direct('safe', { p: 'x' }))).toBe('parallel')
    expect(tools.executionMode(call('safe', '{"p":1}'))).toBe('exclusive')
    expect(tools.executionMode(call('safe', '{bad'))).toBe('exclusive')
    expect(tools.executionMode(call('plain', ''))).toBe('exclusive')
    expect(tools.executionMode(call('off', ''))).toBe('exclusive')
    expect(tools.executionMode(call('ghost', ''))).toBe('exclusive')
    expect(tools.executionMode(call('pred', '{"mode":"read"}'))).toBe('parallel')
    expect(tools.executionMode(call('pred', '{"mode":"write"}'))).toBe('exclusive')
    expect(tools.executionMode(call('pred', '{"mode":"truthy"}'))).toBe('exclusive')
    expect(tools.executionMode(call('pred', '{"mode":"throw"}'))).toBe('exclusive')
    expect(tools.executionMode(call('scoped', '', { agent: a.agent }))).toBe('parallel')
    expect(tools.executionMode(call('scoped', '', { agent: b.agent }))).toBe('exclusive')
    expect(tools.executionMode(call('scoped', ''))).toBe('exclusive')
  })
  it('property: executionMode never throws and only says parallel for valid safe calls', () => {
    const { tools } = setup()
    tools.register({
      name: 'safe',
      description: '',
      parameters: z.object({ p: z.string() }),
      concurrencySafe: true,
      execute: () => '',
    })
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const mode = tools.executionMode(call('safe', raw))
        let valid = false
        try {
          const v = raw === '' ? {} : JSON.parse(raw)
          valid = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.p === 'string'
        } catch {
          valid = false
        }
        expect(mode).toBe(valid ? 'parallel' : 'exclusive')
      }),
    )
  })
})
