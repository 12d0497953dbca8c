import { createUserMessage, type UserMessage } from '@bridle/llm'
import type { PostToolDecision, PreToolDecision, ToolExecution, ToolExecutionResult, ToolReturn } from '@bridle/tools'
import { takeLogLines } from '../../../tests/support/logs.js'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { agent, call, deferred, setup } from './helpers.js'

const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text
const ctxMsg = (t: string): UserMessage => createUserMessage(t, { kind: 'plugin', plugin: 'test' })

function echo(
  tools: ReturnType<typeof setup>['tools'],
  body?: (exec: Parameters<ToolDefinitionExec>[1]) => ToolReturn | Promise<ToolReturn>,
) {
  tools.register({
    name: 'echo',
    description: '',
    parameters: z.object({ v: z.string().default('x') }),
    execute: (args, exec) => (body ? body(exec) : `echo ${args.v}`),
  })
}
type ToolDefinitionExec = import('@bridle/tools').ToolDefinition['execute']

describe('tools/pre-execute', () => {
  it('deny gives Error: <reason>, the body never runs, and post-execute still runs', async () => {
    const { root, tools } = setup()
    const body = vi.fn(() => 'ran')
    echo(tools, body)
    const post = vi.fn((_e: ToolExecution, _result: ToolExecutionResult, next: () => Promise<PostToolDecision>) =>
      next(),
    )
    root.on('tools/pre-execute', (): PreToolDecision => ({ kind: 'deny', reason: 'writes are disabled' }))
    root.on('tools/post-execute', post)
    const r = await tools.execute(call('echo', ''))
    expect(r).toEqual({
      content: [{ type: 'text', text: 'Error: writes are disabled' }],
      isError: true,
      error: { message: 'writes are disabled' },
    })
    expect(body).not.toHaveBeenCalled()
    expect(post).toHaveBeenCalledOnce()
    expect(post.mock.calls[0]![1].isError).toBe(true)
  })
  it('a throwing listener gives Error: <message> and post-execute does not run', async () => {
    const { root, tools } = setup()
    echo(tools)
    const post = vi.fn()
    root.on('tools/pre-execute', () => {
      throw new Error('policy crashed')
    })
    root.on('tools/post-execute', post)
    expect(text(await tools.execute(call('echo', '')))).toBe('Error: policy crashed')
    expect(post).not.toHaveBeenCalled()
  })
  it('listeners run in sequence, allow by default, and cannot change the frozen arguments', async () => {
    const { root, tools } = setup()
    let seen: unknown
    echo(tools, (exec) => ((seen = exec.arguments), 'ok'))
    const order: string[] = []
    root.on('tools/pre-execute', async (exec, next) => {
      order.push('outer')
      expect(Object.isFrozen(exec)).toBe(true)
      expect(() => {
        ;(exec.arguments as { v: string }).v = 'rewritten'
      }).toThrow(TypeError)
      return next()
    })
    root.on('tools/pre-execute', (_exec, next) => (order.push('inner'), next()))
    expect(text(await tools.execute(call('echo', '{"v":"orig"}')))).toBe('ok')
    expect(order).toEqual(['outer', 'inner'])
    expect(seen).toEqual({ v: 'orig' })
  })
  it('an invalid decision is an error result naming the tool', async () => {
    const { root, tools } = setup()
    echo(tools)
    root.on('tools/pre-execute', () => ({ kind: 'maybe' }) as never)
    expect(text(await tools.execute(call('echo', '')))).toBe(
      'Error: tools/pre-execute returned an invalid decision for tool "echo"',
    )
  })
})

describe('tools/execute', () => {
  it('wraps the body: next() yields its raw return, the wrapper may transform it', async () => {
    const { root, tools } = setup()
    echo(tools)
    root.on('tools/execute', async (_exec, next) => `[${await next()}]`)
    expect(text(await tools.execute(call('echo', '{"v":"a"}')))).toBe('[echo a]')
  })
  it('a wrapper throw is an error result; post-execute runs', async () => {
    const { root, tools } = setup()
    echo(tools)
    const post = vi.fn((_e, _r, next) => next())
    root.on('tools/execute', () => {
      throw new Error('sandbox unavailable')
    })
    root.on('tools/post-execute', post)
    expect(text(await tools.execute(call('echo', '')))).toBe('Error: sandbox unavailable')
    expect(post).toHaveBeenCalledOnce()
  })
  it('waits for a body the wrapper did not await before finishing', async () => {
    const { root, tools } = setup()
    const gate = deferred()
    let finished = false
    echo(tools, async () => {
      await gate.promise
      finished = true
      return 'late'
    })
    root.on('tools/execute', (_exec, next) => {
      void next()
      return 'early'
    })
    const pending = tools.execute(call('echo', ''))
    await new Promise((r) => setImmediate(r))
    let settled = false
    void pending.then(() => (settled = true))
    await new Promise((r) => setImmediate(r))
    expect(settled).toBe(false)
    gate.resolve()
    expect(text(await pending)).toBe('early')
    expect(finished).toBe(true)
  })
})

describe('tools/post-execute, contexts and conclusion', () => {
  it('accept may replace content; its contexts come after the deferred ones', async () => {
    const { root, tools } = setup()
    const d1 = ctxMsg('deferred-1')
    const p1 = ctxMsg('post-1')
    echo(tools, (exec) => (exec.deferContext(d1), 'body'))
    root.on('tools/post-execute', (_e, result, _next) => {
      expect(result.additionalContexts).toEqual([d1])
      return {
        kind: 'accept' as const,
        content: [{ type: 'text' as const, text: 'rewritten' }],
        additionalContexts: [p1],
      }
    })
    const r = await tools.execute(call('echo', ''))
    expect(r).toEqual({ content: [{ type: 'text', text: 'rewritten' }], isError: false, additionalContexts: [d1, p1] })
  })
  it('block: isError, content = feedback, message = text blocks joined by newlines, deferred contexts dropped', async () => {
    const { root, tools } = setup()
    const d1 = ctxMsg('deferred')
    const b1 = ctxMsg('block ctx')
    echo(tools, (exec) => (exec.deferContext(d1), exec.concludeTurn(), 'body'))
    root.on('tools/post-execute', () => ({
      kind: 'block' as const,
      feedback: [
        { type: 'text' as const, text: 'output withheld' },
        { type: 'text' as const, text: 'ask the user' },
      ],
      additionalContexts: [b1],
    }))
    expect(await tools.execute(call('echo', ''))).toEqual({
      content: [
        { type: 'text', text: 'output withheld' },
        { type: 'text', text: 'ask the user' },
      ],
      isError: true,
      error: { message: 'output withheld\nask the user' },
      additionalContexts: [b1],
    })
  })
  it('a throwing post-execute listener gives an error result that keeps the deferred contexts', async () => {
    const { root, tools } = setup()
    const d1 = ctxMsg('deferred')
    echo(tools, (exec) => (exec.deferContext(d1), 'body'))
    root.on('tools/post-execute', () => {
      throw new Error('audit down')
    })
    expect(await tools.execute(call('echo', ''))).toEqual({
      content: [{ type: 'text', text: 'Error: audit down' }],
      isError: true,
      error: { message: 'audit down' },
      additionalContexts: [d1],
    })
  })
  it('deferred contexts survive a thrown body; concludesTurn only on success', async () => {
    const { tools } = setup()
    const d1 = ctxMsg('deferred')
    tools.register({
      name: 'fail',
      description: '',
      parameters: z.object({}),
      execute: (_a, exec) => {
        exec.deferContext(d1)
        exec.concludeTurn()
        throw new Error('boom')
      },
    })
    tools.register({
      name: 'done',
      description: '',
      parameters: z.object({}),
      execute: (_a, exec) => (exec.concludeTurn(), 'finished'),
    })
    const failed = await tools.execute(call('fail', ''))
    expect(failed.additionalContexts).toEqual([d1])
    expect(failed).not.toHaveProperty('concludesTurn')
    expect(await tools.execute(call('done', ''))).toEqual({
      content: [{ type: 'text', text: 'finished' }],
      isError: false,
      concludesTurn: true,
    })
  })
  it('deferContext refuses what is not an identified user message', async () => {
    const { tools } = setup()
    echo(tools, (exec) => (exec.deferContext({ role: 'user', content: [] } as never), 'x'))
    expect(text(await tools.execute(call('echo', '')))).toMatch(/deferContext needs an identified user message/)
  })
  it('an invalid post decision is an error result naming the tool', async () => {
    const { root, tools } = setup()
    echo(tools)
    root.on('tools/post-execute', () => ({ kind: 'accept', content: 'nope' }) as never)
    expect(text(await tools.execute(call('echo', '')))).toBe(
      'Error: tools/post-execute returned content that is not a lossless JSON content-block array for tool "echo"',
    )
  })
})

describe('one exec object, scope-filtered hooks, contained observers', () => {
  it('every hook and the body receive the same exec object', async () => {
    const { root, tools } = setup()
    const seen = new Set<unknown>()
    echo(tools, (exec) => (seen.add(exec), 'ok'))
    root.on('tools/pre-execute', (exec, next) => (seen.add(exec), next()))
    root.on('tools/execute', (exec, next) => (seen.add(exec), next()))
    root.on('tools/post-execute', (exec, _r, next) => (seen.add(exec), next()))
    root.on('tools/result', (exec) => void seen.add(exec))
    const input = call('echo', '{"v":"q"}')
    await tools.execute(input)
    expect(seen.size).toBe(1)
    const [exec] = [...seen] as [ToolExecution]
    expect(exec).toMatchObject({ callId: input.callId, name: 'echo', rawArguments: '{"v":"q"}', arguments: { v: 'q' } })
  })
  it("listeners on agent.ctx see only that agent's calls; untagged listeners see all", async () => {
    const { root, tools } = setup()
    echo(tools)
    const a = agent(root, 'a')
    const b = agent(root, 'b')
    const heard: string[] = []
    a.scope.ctx.on('tools/result', (exec) => void heard.push(`a-listener:${exec.agent?.session.id ?? 'none'}`))
    root.on('tools/result', (exec) => void heard.push(`untagged:${exec.agent?.session.id ?? 'none'}`))
    await tools.execute(call('echo', '', { agent: a.agent }))
    await tools.execute(call('echo', '', { agent: b.agent }))
    await tools.execute(call('echo', ''))
    expect(heard).toEqual(['a-listener:a', 'untagged:a', 'untagged:b', 'untagged:none'])
  })
  it('tools/result failures are contained: the next listener runs and the result stands', async () => {
    const { root, tools } = setup()
    echo(tools)
    const warnings: unknown[] = []
    root.on('internal/warning', (...args) => void warnings.push(args))
    const later = vi.fn()
    root.on('tools/result', () => {
      throw new Error('observer sync failure')
    })
    root.on('tools/result', async () => {
      throw new Error('observer async failure')
    })
    root.on('tools/result', later)
    expect(text(await tools.execute(call('echo', '')))).toBe('echo x')
    await new Promise((r) => setImmediate(r))
    expect(later).toHaveBeenCalledOnce()
    expect(JSON.stringify(warnings.map((w) => String((w as unknown[])[1])))).toMatch(
      /observer sync failure.*observer async failure/,
    )
    expect(takeLogLines()).toEqual([
      expect.stringMatching(/^warn app: tools\/result listener failed: Error: observer sync failure/),
      expect.stringMatching(/^warn app: tools\/result listener failed: Error: observer async failure/),
    ])
  })
})
