import { HarnessError, isDeepFrozen } from '@bridle/llm'
import { ToolArgsError, ToolNotFoundError, type ToolDefinition, type ToolExecutionResult } from '@bridle/tools'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { agent, call, direct, setup } from './helpers.js'

const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text
const readFile = (execute: ToolDefinition['execute'] = ({ path }) => `read ${path}`): ToolDefinition => ({
  name: 'read_file',
  description: 'Read a UTF-8 file.',
  parameters: z.object({ path: z.string(), limit: z.number().int().optional() }),
  concurrencySafe: true,
  execute,
})

describe('arguments', () => {
  it('a schema failure names the path and expected type, and the body never runs', async () => {
    const { tools } = setup()
    const body = vi.fn(() => 'x')
    tools.register(readFile(body))
    const result = await tools.execute(call('read_file', '{"path": 3}'))
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'Error: invalid arguments: path: Invalid input: expected string, received number' },
      ],
      isError: true,
      error: {
        message: 'invalid arguments: path: Invalid input: expected string, received number',
        info: { name: 'ToolArgsError', code: 'INVALID_ARGS' },
      },
    })
    expect(body).not.toHaveBeenCalled()
  })
  it("'' means {} (and then fails validation the same way)", async () => {
    const { tools } = setup()
    tools.register(readFile())
    expect(text(await tools.execute(call('read_file', '')))).toBe(
      'Error: invalid arguments: path: Invalid input: expected string, received undefined',
    )
    const seen: unknown[] = []
    tools.register({
      name: 'now',
      description: '',
      parameters: z.object({}),
      execute: (args) => (seen.push(args), 'ok'),
    })
    expect((await tools.execute(call('now', ''))).isError).toBe(false)
    expect(seen).toEqual([{}])
  })
  it('invalid JSON gives (root): not valid JSON (<SyntaxError message>)', async () => {
    const { tools } = setup()
    tools.register(readFile())
    let syntax = ''
    try {
      JSON.parse('{path:')
    } catch (e) {
      syntax = (e as Error).message
    }
    expect(text(await tools.execute(call('read_file', '{path:')))).toBe(
      `Error: invalid arguments: (root): not valid JSON (${syntax})`,
    )
  })
  it('a non-object value gives (root): expected a JSON object, for zod and raw tools', async () => {
    const { tools } = setup()
    tools.register(readFile())
    tools.register({ name: 'raw', description: '', parameters: { type: 'object' }, execute: () => 'ok' })
    for (const raw of ['[1]', '3', 'null', '"s"']) {
      expect(text(await tools.execute(call('read_file', raw)))).toBe(
        'Error: invalid arguments: (root): expected a JSON object',
      )
      expect(text(await tools.execute(call('raw', raw)))).toBe(
        'Error: invalid arguments: (root): expected a JSON object',
      )
    }
  })
  it('joins every violation with "; " and writes nested paths with dots', async () => {
    const { tools } = setup()
    tools.register({
      name: 'batch',
      description: '',
      parameters: z.object({ items: z.array(z.object({ id: z.string() })), mode: z.enum(['a', 'b']) }),
      execute: () => 'ok',
    })
    const r = await tools.execute(call('batch', '{"items":[{"id":"x"},{"id":1}],"mode":"c"}'))
    expect(r.error!.message).toBe(
      'invalid arguments: items.1.id: Invalid input: expected string, received number; mode: Invalid option: expected one of "a"|"b"',
    )
  })
  it('hands the body zod data (defaults applied), deep-frozen, as exec.arguments too', async () => {
    const { tools } = setup()
    let got: { args: unknown; exec: unknown } | undefined
    tools.register({
      name: 'opts',
      description: '',
      parameters: z.object({ n: z.number().default(7), nested: z.object({ k: z.string() }).optional() }),
      execute: (args, exec) => ((got = { args, exec: exec.arguments }), 'ok'),
    })
    await tools.execute(call('opts', '{"nested":{"k":"v"}}'))
    expect(got!.args).toEqual({ n: 7, nested: { k: 'v' } })
    expect(got!.exec).toBe(got!.args)
    expect(isDeepFrozen(got!.args)).toBe(true)
  })
  it('a raw-schema tool receives the parsed object unvalidated', async () => {
    const { tools } = setup()
    let got: unknown
    tools.register({
      name: 'raw',
      description: '',
      parameters: { type: 'object', required: ['x'] },
      execute: (a) => ((got = a), 'ok'),
    })
    expect((await tools.execute(call('raw', '{"y":1}'))).isError).toBe(false)
    expect(got).toEqual({ y: 1 })
  })
  it('direct arguments are snapshotted; non-JSON arguments end with the spec error', async () => {
    const { tools } = setup()
    let got: unknown
    tools.register({ name: 'raw', description: '', parameters: { type: 'object' }, execute: (a) => ((got = a), 'ok') })
    const args = { list: [1, 2] }
    const pending = tools.execute(direct('raw', args))
    args.list.push(3)
    await pending
    expect(got).toEqual({ list: [1, 2] })
    for (const bad of [{ n: Number.NaN }, { d: new Date() }, { u: undefined }, { f: () => 1 }]) {
      const r = await tools.execute(direct('raw', bad))
      expect(r).toEqual({
        content: [{ type: 'text', text: 'Error: tool execution arguments must be losslessly JSON-serializable' }],
        isError: true,
        error: { message: 'tool execution arguments must be losslessly JSON-serializable' },
      })
    }
  })
})

describe('resolution', () => {
  it('an unknown tool gives UNKNOWN_TOOL', async () => {
    const { tools } = setup()
    expect(await tools.execute(call('ghost', '{}'))).toEqual({
      content: [{ type: 'text', text: 'Error: unknown tool "ghost"' }],
      isError: true,
      error: { message: 'unknown tool "ghost"', info: { name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' } },
    })
  })
  it("another agent's tool is unknown; a scoped shadow runs for its agent only", async () => {
    const { root, tools } = setup()
    const a = agent(root, 'a')
    const b = agent(root, 'b')
    a.scope.ctx.tools.register({ name: 'mine', description: '', parameters: z.object({}), execute: () => 'a-only' })
    tools.register({ name: 'who', description: '', parameters: z.object({}), execute: () => 'global' })
    a.scope.ctx.tools.register({ name: 'who', description: '', parameters: z.object({}), execute: () => 'shadow' })
    expect(text(await tools.execute(call('mine', '', { agent: a.agent })))).toBe('a-only')
    expect(text(await tools.execute(call('mine', '', { agent: b.agent })))).toBe('Error: unknown tool "mine"')
    expect(text(await tools.execute(call('who', '', { agent: a.agent })))).toBe('shadow')
    expect(text(await tools.execute(call('who', '', { agent: b.agent })))).toBe('global')
  })
  it('a tool disposed after being listed is UNKNOWN_TOOL when called later', async () => {
    const { tools } = setup()
    const dispose = tools.register(readFile())
    dispose()
    expect((await tools.execute(call('read_file', '{"path":"a"}'))).error!.info!.code).toBe('UNKNOWN_TOOL')
  })
  it('exports coded error classes', () => {
    expect(new ToolNotFoundError('x')).toMatchObject({
      name: 'ToolNotFoundError',
      code: 'UNKNOWN_TOOL',
      message: 'unknown tool "x"',
    })
    expect(new ToolArgsError(['a: b', '(root): c'])).toMatchObject({
      name: 'ToolArgsError',
      code: 'INVALID_ARGS',
      message: 'invalid arguments: a: b; (root): c',
    })
    expect(new ToolArgsError([])).toBeInstanceOf(HarnessError)
  })
})

describe('normalizing the body outcome', () => {
  const run = async (value: unknown) => {
    const { tools } = setup()
    tools.register({ name: 't', description: '', parameters: z.object({}), execute: () => value as never })
    return tools.execute(call('t', ''))
  }
  it('string, blocks, and {content, meta}', async () => {
    expect(await run('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }], isError: false })
    expect(
      await run([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]),
    ).toEqual({
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      isError: false,
    })
    expect(await run({ content: [{ type: 'text', text: 'c' }], meta: { bytes: 3 } })).toEqual({
      content: [{ type: 'text', text: 'c' }],
      isError: false,
      meta: { bytes: 3 },
    })
  })
  it('anything else is an unsupported value', async () => {
    for (const value of [
      42,
      undefined,
      null,
      { content: 'x' },
      [1, 2],
      new (class R {
        content = []
      })(),
    ]) {
      expect(await run(value)).toEqual({
        content: [{ type: 'text', text: 'Error: tool "t" returned an unsupported value' }],
        isError: true,
        error: { message: 'tool "t" returned an unsupported value' },
      })
    }
  })
  it('content or meta that is not lossless JSON is an error', async () => {
    for (const value of [
      [{ type: 'text', text: 'a', n: Number.NaN }],
      { content: [], meta: { big: 1n } },
      { content: [], meta: new Map() },
    ]) {
      expect(text(await run(value))).toBe('Error: tool result must be losslessly JSON-serializable')
    }
  })
  it('the result is deep-frozen and detached from what the body returned', async () => {
    const blocks = [{ type: 'text' as const, text: 'a' }]
    const r = await run(blocks)
    expect(isDeepFrozen(r)).toBe(true)
    blocks[0]!.text = 'changed'
    expect(text(r)).toBe('a')
  })
  it('thrown values become canonical error results', async () => {
    const throwing = async (e: unknown) => {
      const { tools } = setup()
      tools.register({
        name: 't',
        description: '',
        parameters: z.object({}),
        execute: () => {
          throw e
        },
      })
      return tools.execute(call('t', ''))
    }
    expect(await throwing(new Error('disk full'))).toEqual({
      content: [{ type: 'text', text: 'Error: disk full' }],
      isError: true,
      error: { message: 'disk full' },
    })
    expect((await throwing(new HarnessError('nope', 'E_NOPE'))).error).toEqual({
      message: 'nope',
      info: { name: 'HarnessError', code: 'E_NOPE' },
    })
    expect(text(await throwing('plain string'))).toBe('Error: plain string')
    expect(text(await throwing({ message: 'shaped' }))).toBe('Error: shaped')
    expect(text(await throwing(7))).toBe('Error: 7')
    const hostile = {
      get message(): string {
        throw new Error('no')
      },
    }
    expect(text(await throwing(hostile))).toBe('Error: <unprintable thrown value>')
    expect(text(await throwing(Object.create(null)))).toBe('Error: <unprintable thrown value>')
  })
  it('an async rejection is an error result too, and execute() never rejects for tool errors', async () => {
    const { tools } = setup()
    tools.register({
      name: 't',
      description: '',
      parameters: z.object({}),
      execute: async () => Promise.reject(new Error('later')),
    })
    await expect(tools.execute(call('t', ''))).resolves.toMatchObject({ isError: true, error: { message: 'later' } })
  })
  it('rejects malformed input (an internal failure), naming what is wrong', async () => {
    const { tools } = setup()
    await expect(
      tools.execute({ callId: 'c', name: 't', signal: new AbortController().signal } as never),
    ).rejects.toThrow('tool call "c" needs exactly one of rawArguments (a model\'s text) or arguments')
  })
})
