/**
 * What a caller or a hook gets wrong, and what it is told. Malformed call input is an internal failure: `execute`
 * rejects with a message naming the problem. A hook that returns something other than a decision, or a schema that
 * throws, is the call's error result (never a rejection), and the result says which hook or what went wrong.
 */
import { createUserMessage, type UserMessage } from '@bridle/llm'
import type { ToolExecution, ToolExecutionInput, ToolExecutionResult } from '@bridle/tools'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { call, direct, setup } from './helpers.js'

const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text
const ctxMsg = (t: string): UserMessage => createUserMessage(t, { kind: 'plugin', plugin: 'test' })

function withEcho() {
  const s = setup()
  const body = vi.fn((args: { v: string }) => `echo ${args.v}`)
  s.tools.register({
    name: 'echo',
    description: '',
    parameters: z.object({ v: z.string().default('x') }),
    execute: body,
  })
  return { ...s, body }
}

describe('malformed call input rejects, naming what is wrong', () => {
  const signal = new AbortController().signal
  it.each<[string, unknown, string]>([
    ['null', null, 'tool execution input must be an object'],
    ['a string', 'echo', 'tool execution input must be an object'],
    ['an empty callId', { callId: '', name: 'echo', rawArguments: '', signal }, 'needs a non-empty string callId'],
    ['a numeric callId', { callId: 7, name: 'echo', rawArguments: '', signal }, 'needs a non-empty string callId'],
    ['a numeric name', { callId: 'c', name: 7, rawArguments: '', signal }, 'tool call "c" needs a string tool name'],
    ['no signal', { callId: 'c', name: 'echo', rawArguments: '' }, 'tool call "c" needs an AbortSignal'],
    [
      'rawArguments that are not text',
      { callId: 'c', name: 'echo', rawArguments: 42, signal },
      'tool call "c" rawArguments must be a string',
    ],
  ])('%s', async (_name, input, message) => {
    const { tools, body } = withEcho()
    const full = message.startsWith('needs') ? `tool execution input ${message}` : message
    await expect(tools.execute(input as ToolExecutionInput)).rejects.toThrow(new TypeError(full))
    expect(body).not.toHaveBeenCalled()
  })

  it('rawArguments explicitly undefined beside arguments is a direct call', async () => {
    const { tools } = withEcho()
    const result = await tools.execute(direct('echo', { v: 'direct' }, { rawArguments: undefined } as never))
    expect(text(result)).toBe('echo direct')
  })
})

describe('the execution object a hook and the body see', () => {
  it('carries rawArguments only for a model call and agent only when there is one', async () => {
    const { root, tools } = withEcho()
    const seen: ToolExecution[] = []
    root.on('tools/pre-execute', (exec, next) => (seen.push(exec), next()))
    await tools.execute(direct('echo', { v: 'a' }))
    await tools.execute(call('echo', '{"v":"b"}'))
    expect(Object.keys(seen[0]!)).not.toContain('rawArguments')
    expect(Object.keys(seen[0]!)).not.toContain('agent')
    expect(seen[1]!.rawArguments).toBe('{"v":"b"}')
  })
})

describe('tools/execute wrappers', () => {
  it('a wrapper that calls next() twice runs the body once and gets its return both times', async () => {
    const { root, tools, body } = withEcho()
    root.on('tools/execute', async (_exec, next) => {
      const first = await next()
      const second = await next()
      return `${first} / ${second}`
    })
    expect(text(await tools.execute(call('echo', '{"v":"once"}')))).toBe('echo once / echo once')
    expect(body).toHaveBeenCalledOnce()
  })
})

describe('a schema that throws while validating', () => {
  it('is the call error result, not a rejection, and the body never runs', async () => {
    const { tools } = setup()
    const body = vi.fn(() => 'ran')
    tools.register({
      name: 'strict',
      description: '',
      parameters: z.object({
        v: z.string().transform(() => {
          throw new Error('lookup table unavailable')
        }),
      }),
      execute: body,
    })
    const result = await tools.execute(call('strict', '{"v":"x"}'))
    expect(result).toMatchObject({ isError: true, error: { message: 'lookup table unavailable' } })
    expect(body).not.toHaveBeenCalled()
  })
})

describe('tools/pre-execute decisions that are not decisions', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
    ['a bare string', 'allow'],
    ['deny without a reason', { kind: 'deny' }],
    ['deny with a non-text reason', { kind: 'deny', reason: 5 }],
    ['another kind with a reason', { kind: 'maybe', reason: 'why not' }],
  ])('%s: an error result naming the tool; the call ends before post-execute', async (_name, decision) => {
    const { root, tools, body } = withEcho()
    const post = vi.fn((_e, _r, next) => next())
    root.on('tools/pre-execute', () => decision as never)
    root.on('tools/post-execute', post)
    const prepared = await tools.prepare(call('echo', ''))
    expect(prepared.stage).toBe('final')
    expect(text(await prepared.finalize())).toBe(
      'Error: tools/pre-execute returned an invalid decision for tool "echo"',
    )
    expect(body).not.toHaveBeenCalled()
    expect(post).not.toHaveBeenCalled()
  })

  it('a context a pre-execute hook deferred before throwing is still delivered with the error', async () => {
    const { root, tools } = withEcho()
    const note = ctxMsg('policy consulted')
    root.on('tools/pre-execute', (exec) => {
      ;(exec as unknown as { deferContext(m: UserMessage): void }).deferContext(note)
      throw new Error('policy server down')
    })
    const result = await tools.execute(call('echo', ''))
    expect(result).toMatchObject({ isError: true, error: { message: 'policy server down' } })
    expect(result.additionalContexts).toEqual([note])
  })
})

describe('tools/post-execute decisions that are not decisions', () => {
  const invalid = (what: string) => `Error: tools/post-execute returned ${what} for tool "echo"`
  it.each<[string, unknown, string]>([
    ['null', null, invalid('an invalid decision')],
    ['undefined', undefined, invalid('an invalid decision')],
    ['a bare string', 'accept', invalid('an invalid decision')],
    ['another kind', { kind: 'maybe' }, invalid('an invalid decision')],
    [
      'contexts that are not a list',
      { kind: 'accept', additionalContexts: 'note' },
      invalid('additionalContexts that are not identified user messages'),
    ],
    [
      'a list with one context that is not a message',
      { kind: 'accept', additionalContexts: [ctxMsg('fine'), { role: 'user' }] },
      invalid('additionalContexts that are not identified user messages'),
    ],
    [
      'block feedback that is not content blocks',
      { kind: 'block', feedback: 'no' },
      invalid('block feedback that is not a lossless JSON content-block array'),
    ],
  ])('%s is an error result naming the hook and the tool', async (_name, decision, message) => {
    const { root, tools } = withEcho()
    root.on('tools/post-execute', () => decision as never)
    const result = await tools.execute(call('echo', ''))
    expect(result.isError).toBe(true)
    expect(text(result)).toBe(message)
  })

  it('a block without contexts of its own delivers none (the deferred ones are dropped)', async () => {
    const { root, tools } = setup()
    tools.register({
      name: 'echo',
      description: '',
      parameters: z.object({}),
      execute: (_args, exec) => (exec.deferContext(ctxMsg('deferred')), 'ran'),
    })
    root.on('tools/post-execute', () => ({ kind: 'block' as const, feedback: [{ type: 'text', text: 'blocked' }] }))
    const result = await tools.execute(call('echo', ''))
    expect(result).toEqual({
      content: [{ type: 'text', text: 'blocked' }],
      isError: true,
      error: { message: 'blocked' },
    })
  })
})
