/**
 * Black-box conformance with the package's documented contract (README.md, docs/tool-calls.md): only the public
 * entry is imported; names, codes,
 * canonical error texts, orders and the T1 example are pinned exactly.
 */
import { callId, createUserMessage, HarnessError, isDeepFrozen, type UserMessage } from '@bridle/llm'
import { createScope } from '@bridle/scope'
import { takeLogLines } from '../../../tests/support/logs.js'
import { SystemPrompt } from '@bridle/system-prompt'
import {
  TOOL_ABORTED,
  TOOL_ABORTED_BEFORE_DISPATCH,
  ToolArgsError,
  ToolNotFoundError,
  ToolRegistry,
  type PostToolDecision,
  type ToolAgent,
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@bridle/tools'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

let n = 0
function load(systemPromptConfig?: unknown) {
  const root = new Context()
  let changes = 0
  root.on('tools/change', (...args: unknown[]) => {
    expect(args).toEqual([])
    changes++
  })
  root.plugin(SystemPrompt, systemPromptConfig as never)
  root.plugin(ToolRegistry)
  return { root, tools: root.tools, changes: () => changes }
}
const model = (name: string, rawArguments: string, extra: Partial<ToolExecutionInput> = {}) =>
  ({
    callId: callId(`m${++n}`),
    name,
    rawArguments,
    signal: new AbortController().signal,
    ...extra,
  }) as ToolExecutionInput
const direct = (name: string, args: unknown, extra: Partial<ToolExecutionInput> = {}) =>
  ({
    callId: callId(`d${++n}`),
    name,
    arguments: args,
    signal: new AbortController().signal,
    ...extra,
  }) as ToolExecutionInput
const raw = (
  name: string,
  execute: ToolDefinition['execute'],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition => ({
  name,
  description: `${name} tool`,
  parameters: { type: 'object' },
  execute,
  ...extra,
})
const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text
const ctxMsg = (t: string): UserMessage => createUserMessage(t, { kind: 'plugin', plugin: 'spec' })
function agentOf(root: Context, id: string) {
  const agent: ToolAgent = { session: { id, header: { cwd: '/w' } } }
  return { agent, scope: createScope(root, agent) }
}

describe('exports', () => {
  it('exports the registry, the error classes and the abort codes; ctx.plugin(ToolRegistry) provides ctx.tools', () => {
    expect(TOOL_ABORTED).toBe('ABORTED')
    expect(TOOL_ABORTED_BEFORE_DISPATCH).toBe('ABORTED_BEFORE_DISPATCH')
    expect(ToolRegistry.inject).toEqual(['systemPrompt'])
    const { root } = load()
    expect(root.tools).toBeInstanceOf(ToolRegistry)
    const notFound = new ToolNotFoundError('x')
    expect(notFound).toBeInstanceOf(HarnessError)
    expect([notFound.name, notFound.code, notFound.message]).toEqual([
      'ToolNotFoundError',
      'UNKNOWN_TOOL',
      'unknown tool "x"',
    ])
    const args = new ToolArgsError(['a: bad', '(root): worse'])
    expect(args).toBeInstanceOf(HarnessError)
    expect([args.name, args.code, args.message]).toEqual([
      'ToolArgsError',
      'INVALID_ARGS',
      'invalid arguments: a: bad; (root): worse',
    ])
  })
})

describe('registration', () => {
  it('a raw schema whose reading throws is rejected as not lossless JSON', () => {
    const { tools } = load()
    const parameters = {
      type: 'object',
      get properties(): unknown {
        throw new Error('getter exploded')
      },
    }
    expect(() => tools.register(raw('t', () => '', { parameters }))).toThrow(
      new TypeError(
        'tool "t" parameters must be a zod schema or a plain, losslessly JSON-serializable JSON Schema object',
      ),
    )
  })
  it('rejects non-object parameters with the root-object message, registering and emitting nothing', () => {
    for (const parameters of [undefined, null, 'object', 3, [], [{ type: 'object' }]]) {
      const { tools, changes } = load()
      expect(() => tools.register(raw('t', () => '', { parameters: parameters as never }))).toThrow(
        new TypeError('tool "t" parameters must describe a JSON object'),
      )
      expect(changes()).toBe(0)
      expect(tools.schemas()).toEqual([])
    }
  })
  it('validation order: name, description, execute, concurrencySafe, then parameters', () => {
    const { tools } = load()
    const bad = { name: 'x y', description: 1, execute: 1, concurrencySafe: 1, parameters: 1 } as never
    expect(() => tools.register(bad)).toThrow('invalid tool name "x y" (must match /^[a-zA-Z0-9_-]{1,64}$/)')
    expect(() => tools.register({ ...(bad as object), name: 'x' } as never)).toThrow(
      'tool "x" description must be a string',
    )
    expect(() => tools.register({ ...(bad as object), name: 'x', description: '' } as never)).toThrow(
      'tool "x" must have an execute function',
    )
    expect(() =>
      tools.register({ ...(bad as object), name: 'x', description: '', execute: () => '' } as never),
    ).toThrow('tool "x" concurrencySafe must be a boolean or a function')
    expect(() =>
      tools.register({
        ...(bad as object),
        name: 'x',
        description: '',
        execute: () => '',
        concurrencySafe: false,
      } as never),
    ).toThrow('tool "x" parameters must describe a JSON object')
  })
  it('T1: the zod schema reaches the assembly with type object, required [path], no $schema', async () => {
    const { root, tools } = load()
    tools.register({
      name: 'read_file',
      description: 'Read a UTF-8 file.',
      parameters: z.object({ path: z.string(), limit: z.number().int().optional() }),
      concurrencySafe: true,
      execute: ({ path }) => `read ${path}`,
    })
    const [schema] = (await root.systemPrompt.assemble()).tools
    expect(schema!.name).toBe('read_file')
    expect(schema!.description).toBe('Read a UTF-8 file.')
    expect(schema!.parameters.type).toBe('object')
    expect(schema!.parameters.required).toEqual(['path'])
    expect('$schema' in schema!.parameters).toBe(false)
  })
  it("io: 'input': a field with a default is optional for the model", () => {
    const { tools } = load()
    tools.register({
      name: 'd',
      description: '',
      parameters: z.object({ a: z.string(), b: z.number().default(1) }),
      execute: () => '',
    })
    expect(tools.schemas()[0]!.parameters.required).toEqual(['a'])
  })
  it('duplicates: global message with the agent.ctx hint, scoped message; a scoped shadow is legal', () => {
    const { root, tools, changes } = load()
    tools.register(raw('t', () => 'global'))
    expect(() => tools.register(raw('t', () => ''))).toThrow(
      new Error(
        'tool "t" is already registered (for a per-agent variant, register through that agent\'s `agent.ctx` instead)',
      ),
    )
    const { agent, scope } = agentOf(root, 'a')
    scope.ctx.tools.register(raw('t', () => 'scoped'))
    expect(() => scope.ctx.tools.register(raw('t', () => ''))).toThrow(
      new Error('tool "t" is already registered in this scope'),
    )
    expect(changes()).toBe(2)
    expect(tools.get('t', agent)?.execute).not.toBe(tools.get('t')?.execute)
  })
  it('tools/change: once per registration and once per removal, no arguments', () => {
    const { tools, changes } = load()
    const dispose = tools.register(raw('t', () => ''))
    dispose()
    dispose()
    expect(changes()).toBe(2)
  })
  it('system-prompt/change: once per registration and once per removal, right after tools/change (wave 2)', async () => {
    const { root, tools } = load()
    const log: string[] = []
    root.on('tools/change', () => void log.push('tools/change'))
    root.on('system-prompt/change', (...args: unknown[]) => void log.push(`system-prompt/change ${args.length}`))
    const dispose = tools.register(raw('t', () => ''))
    expect(log).toEqual(['tools/change', 'system-prompt/change 0'])
    dispose()
    dispose()
    expect(log).toEqual(['tools/change', 'system-prompt/change 0', 'tools/change', 'system-prompt/change 0'])
    const { agent, scope } = agentOf(root, 'a')
    scope.ctx.tools.register(raw('scoped', () => ''))
    await scope.dispose()
    expect(tools.get('scoped', agent)).toBeUndefined()
    expect(log.filter((e) => e.startsWith('system-prompt/change'))).toHaveLength(4)
  })
})

describe('feeding the system prompt', () => {
  it('an agent sees global tools plus its own, nearest wins, canonical order; other agents do not', async () => {
    const { root, tools } = load()
    tools.register(raw('zulu', () => ''))
    tools.register(raw('alpha', () => '', { description: 'global alpha' }))
    const a = agentOf(root, 'a')
    const b = agentOf(root, 'b')
    a.scope.ctx.tools.register(raw('mike', () => ''))
    a.scope.ctx.tools.register(raw('alpha', () => '', { description: 'agent alpha' }))
    const forA = (await root.systemPrompt.assemble({ scope: a.agent })).tools
    expect(forA.map((t) => `${t.name}:${t.description}`)).toEqual([
      'alpha:agent alpha',
      'mike:mike tool',
      'zulu:zulu tool',
    ])
    const forB = (await root.systemPrompt.assemble({ scope: b.agent })).tools
    expect(forB.map((t) => t.name)).toEqual(['alpha', 'zulu'])
  })
  it('a disposed tool is absent from the next assembly and a later call gets UNKNOWN_TOOL', async () => {
    const { root, tools } = load()
    const dispose = tools.register(raw('gone', () => 'here'))
    dispose()
    expect((await root.systemPrompt.assemble()).tools).toEqual([])
    const r = await tools.execute(model('gone', '{}'))
    expect(r.error).toEqual({
      message: 'unknown tool "gone"',
      info: { name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' },
    })
  })
  it('a toolOrder entry naming a tool the agent cannot see fails the assembly', async () => {
    const { root } = load({ toolOrder: ['secret', '<unlisted-tools>'] })
    const a = agentOf(root, 'a')
    a.scope.ctx.tools.register(raw('secret', () => ''))
    await expect(root.systemPrompt.assemble()).rejects.toThrow(
      'toolOrder lists unregistered tool "secret"; known tools: (none)',
    )
    expect((await root.systemPrompt.assemble({ scope: a.agent })).tools.map((t) => t.name)).toEqual(['secret'])
  })
})

describe('queries', () => {
  it('schemas(): global registration order, shadow in its global slot, scope-only appended, fresh copies', () => {
    const { root, tools } = load()
    tools.register(raw('b', () => ''))
    tools.register(raw('a', () => ''))
    const { agent, scope } = agentOf(root, 'x')
    scope.ctx.tools.register(raw('c', () => ''))
    scope.ctx.tools.register(raw('b', () => '', { description: 'shadow' }))
    const list = tools.schemas(agent)
    expect(list.map((s) => `${s.name}:${s.description}`)).toEqual(['b:shadow', 'a:a tool', 'c:c tool'])
    list[0]!.parameters.type = 'string'
    expect(tools.schemas(agent)[0]!.parameters.type).toBe('object')
  })
  it('executionMode: parallel only for a visible tool, valid arguments and concurrencySafe exactly true', () => {
    const { root, tools } = load()
    const args = z.object({ n: z.number().default(7) })
    const seen: unknown[] = []
    tools.register({ name: 'safe', description: '', parameters: args, concurrencySafe: true, execute: () => '' })
    tools.register({ name: 'plain', description: '', parameters: args, execute: () => '' })
    tools.register({
      name: 'pred',
      description: '',
      parameters: args,
      concurrencySafe: (a) => (seen.push(a), a.n === 7),
      execute: () => '',
    })
    tools.register({
      name: 'truthy',
      description: '',
      parameters: args,
      concurrencySafe: () => 1 as never,
      execute: () => '',
    })
    tools.register({
      name: 'throws',
      description: '',
      parameters: args,
      concurrencySafe: () => {
        throw new Error('x')
      },
      execute: () => '',
    })
    const a = agentOf(root, 'a')
    a.scope.ctx.tools.register({
      name: 'mine',
      description: '',
      parameters: args,
      concurrencySafe: true,
      execute: () => '',
    })
    expect(tools.executionMode(model('safe', ''))).toBe('parallel')
    expect(tools.executionMode(model('safe', '{"n":"x"}'))).toBe('exclusive')
    expect(tools.executionMode(model('safe', '{'))).toBe('exclusive')
    expect(tools.executionMode(model('plain', ''))).toBe('exclusive')
    expect(tools.executionMode(model('pred', ''))).toBe('parallel')
    expect(seen).toEqual([{ n: 7 }])
    expect(tools.executionMode(model('pred', '{"n":1}'))).toBe('exclusive')
    expect(tools.executionMode(model('truthy', ''))).toBe('exclusive')
    expect(tools.executionMode(model('throws', ''))).toBe('exclusive')
    expect(tools.executionMode(model('nope', ''))).toBe('exclusive')
    expect(tools.executionMode(model('mine', ''))).toBe('exclusive')
    expect(tools.executionMode(model('mine', '', { agent: a.agent }))).toBe('parallel')
  })
})

describe('arguments', () => {
  const tool = () =>
    ({
      name: 'read_file',
      description: 'Read a UTF-8 file.',
      parameters: z.object({ path: z.string(), limit: z.number().int().optional() }),
      execute: ({ path }: { path: string }) => `read ${path}`,
    }) as ToolDefinition
  it('T1: a wrong type names the path; the body never runs', async () => {
    const { tools } = load()
    let ran = false
    tools.register({ ...tool(), execute: () => ((ran = true), '') })
    const r = await tools.execute(model('read_file', '{"path": 3}'))
    const expected = z.object({ path: z.string() }).safeParse({ path: 3 }).error!.issues[0]!.message
    expect(r.isError).toBe(true)
    expect(text(r)).toBe(`Error: invalid arguments: path: ${expected}`)
    expect(r.error).toEqual({
      message: `invalid arguments: path: ${expected}`,
      info: { name: 'ToolArgsError', code: 'INVALID_ARGS' },
    })
    expect(ran).toBe(false)
  })
  it("T1: '' parses to {} and fails on path the same way; invalid JSON gives (root): not valid JSON (…)", async () => {
    const { tools } = load()
    tools.register(tool())
    const missing = z.object({ path: z.string() }).safeParse({}).error!.issues[0]!.message
    expect(text(await tools.execute(model('read_file', '')))).toBe(`Error: invalid arguments: path: ${missing}`)
    let syntax = ''
    try {
      JSON.parse('{path:')
    } catch (e) {
      syntax = (e as Error).message
    }
    expect(text(await tools.execute(model('read_file', '{path:')))).toBe(
      `Error: invalid arguments: (root): not valid JSON (${syntax})`,
    )
  })
  it('violations are joined with "; ", nested paths with "."', async () => {
    const { tools } = load()
    tools.register({
      name: 'n',
      description: '',
      parameters: z.object({ a: z.object({ b: z.string() }), c: z.number() }),
      execute: () => '',
    })
    const r = await tools.execute(model('n', '{"a":{"b":1},"c":"x"}'))
    expect(r.error?.message).toMatch(/^invalid arguments: a\.b: .+; c: .+$/)
  })
  it('a non-object value gives (root): expected a JSON object', async () => {
    const { tools } = load()
    tools.register(raw('r', () => 'ok'))
    for (const value of ['[]', '3', '"s"', 'null']) {
      expect(text(await tools.execute(model('r', value)))).toBe(
        'Error: invalid arguments: (root): expected a JSON object',
      )
    }
  })
  it('direct arguments that are not lossless JSON end the call with the spec text', async () => {
    const { tools } = load()
    tools.register(raw('r', () => 'ok'))
    for (const value of [{ a: undefined }, { a: Number.NaN }, { a: new Date(0) }, { f: () => 1 }]) {
      const r = await tools.execute(direct('r', value))
      expect(text(r)).toBe('Error: tool execution arguments must be losslessly JSON-serializable')
      expect(r.error).toEqual({ message: 'tool execution arguments must be losslessly JSON-serializable' })
    }
  })
  it('direct arguments whose reading throws (a hostile getter) get the same spec text', async () => {
    const { tools } = load()
    tools.register(raw('r', () => 'ok'))
    const hostile = {
      get a(): string {
        throw new Error('getter exploded')
      },
    }
    const r = await tools.execute(direct('r', hostile))
    expect(text(r)).toBe('Error: tool execution arguments must be losslessly JSON-serializable')
  })
  it('zod data (defaults applied) becomes exec.arguments, deep-frozen; the raw string is kept unchanged', async () => {
    const { tools } = load()
    let exec: ToolExecution | undefined
    tools.register({
      name: 'z',
      description: '',
      parameters: z.object({ opts: z.object({ k: z.string().default('dflt') }) }),
      execute: (_a, e) => ((exec = e), 'ok'),
    })
    await tools.execute(model('z', ' {"opts":{}} '))
    expect(exec!.arguments).toEqual({ opts: { k: 'dflt' } })
    expect(Object.isFrozen(exec!.arguments)).toBe(true)
    expect(Object.isFrozen((exec!.arguments as { opts: object }).opts)).toBe(true)
    expect(exec!.rawArguments).toBe(' {"opts":{}} ')
  })
})

describe('pipeline stages and canonical error results', () => {
  it('stage 1: an aborted signal gives ABORTED_BEFORE_DISPATCH; no pre- or post-execute', async () => {
    const { root, tools } = load()
    const hooks: string[] = []
    tools.register(raw('t', () => 'ok'))
    root.on('tools/pre-execute', (_e, next) => (hooks.push('pre'), next()))
    root.on('tools/post-execute', (_e, _r, next) => (hooks.push('post'), next()))
    const controller = new AbortController()
    controller.abort()
    const r = await tools.execute(model('t', '{}', { signal: controller.signal }))
    expect(r).toEqual({
      content: [{ type: 'text', text: 'Error: tool call aborted before dispatch' }],
      isError: true,
      error: {
        message: 'tool call aborted before dispatch',
        info: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
      },
    })
    expect(hooks).toEqual([])
  })
  it('stage 2: an unknown tool (or another agent’s tool) gives the UNKNOWN_TOOL result', async () => {
    const { root, tools } = load()
    const a = agentOf(root, 'a')
    a.scope.ctx.tools.register(raw('private', () => 'ok'))
    const r = await tools.execute(model('private', '{}'))
    expect(r).toEqual({
      content: [{ type: 'text', text: 'Error: unknown tool "private"' }],
      isError: true,
      error: { message: 'unknown tool "private"', info: { name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' } },
    })
    expect(text(await tools.execute(model('private', '{}', { agent: a.agent })))).toBe('ok')
  })
  it('stage 5: aborted during pre-execute gives ABORTED_BEFORE_DISPATCH, and post-execute runs', async () => {
    const { root, tools } = load()
    const controller = new AbortController()
    let ran = false
    let post: ToolExecutionResult | undefined
    tools.register(raw('t', () => ((ran = true), 'ok')))
    root.on('tools/pre-execute', (_e, next) => (controller.abort(), next()))
    root.on('tools/post-execute', (_e, r, next) => ((post = r), next()))
    const r = await tools.execute(model('t', '{}', { signal: controller.signal }))
    expect(r.error?.info).toEqual({ name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(post?.error?.info?.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(ran).toBe(false)
  })
  it('stage 8: a success whose signal was aborted while the body ran becomes Error: tool call aborted', async () => {
    const { tools } = load()
    const controller = new AbortController()
    tools.register(raw('t', () => (controller.abort(), 'done')))
    const r = await tools.execute(model('t', '{}', { signal: controller.signal }))
    expect(r).toEqual({
      content: [{ type: 'text', text: 'Error: tool call aborted' }],
      isError: true,
      error: { message: 'tool call aborted', info: { name: 'AbortError', code: 'ABORTED' } },
    })
  })
  it('thrown values: HarnessError carries info, others do not; message rules', async () => {
    const hostile = {
      get message(): string {
        throw new Error('no')
      },
    }
    const cases: [unknown, string, { name: string; code: string } | undefined][] = [
      [new HarnessError('coded', 'MY_CODE'), 'coded', { name: 'HarnessError', code: 'MY_CODE' }],
      [new TypeError('plain'), 'plain', undefined],
      [{ message: 'object message' }, 'object message', undefined],
      ['a string', 'a string', undefined],
      [42, '42', undefined],
      [hostile, '<unprintable thrown value>', undefined],
    ]
    for (const [thrown, message, info] of cases) {
      const { tools } = load()
      tools.register(
        raw('t', () => {
          throw thrown
        }),
      )
      const r = await tools.execute(model('t', '{}'))
      expect(r.content).toEqual([{ type: 'text', text: `Error: ${message}` }])
      expect(r.error).toEqual(info === undefined ? { message } : { message, info })
      expect(r.isError).toBe(true)
    }
  })
  it('every hook of one call receives the same exec; agent listeners see only that agent’s calls', async () => {
    const { root, tools } = load()
    tools.register(raw('t', () => 'ok'))
    const a = agentOf(root, 'a')
    const execs: ToolExecution[] = []
    const agentHeard: string[] = []
    root.on('tools/pre-execute', (e, next) => (execs.push(e), next()))
    root.on('tools/execute', (e, next) => (execs.push(e), next()))
    root.on('tools/post-execute', (e, _r, next) => (execs.push(e), next()))
    root.on('tools/result', (e) => void execs.push(e))
    a.scope.ctx.on('tools/result', (e) => void agentHeard.push(e.callId))
    const input = model('t', '{}', { agent: a.agent })
    await tools.execute(input)
    await tools.execute(model('t', '{}'))
    expect(execs).toHaveLength(8)
    expect(new Set(execs.slice(0, 4)).size).toBe(1)
    expect(Object.isFrozen(execs[0])).toBe(true)
    expect(execs[0]!.agent).toBe(a.agent)
    expect(agentHeard).toEqual([input.callId])
  })
  it('a failing tools/result listener is contained', async () => {
    const { root, tools } = load()
    tools.register(raw('t', () => 'ok'))
    root.on('internal/warning', () => {})
    root.on('tools/result', () => {
      throw new Error('observer broke')
    })
    let second = false
    root.on('tools/result', () => void (second = true))
    expect(text(await tools.execute(model('t', '{}')))).toBe('ok')
    expect(second).toBe(true)
    expect(takeLogLines()).toEqual([
      expect.stringMatching(/^warn app: tools\/result listener failed: Error: observer broke/),
    ])
  })
})

describe('normalizing the body outcome', () => {
  it('string, blocks and {content, meta}; results are deep-frozen', async () => {
    const { tools } = load()
    tools.register(raw('s', () => 'hi'))
    tools.register(raw('b', () => [{ type: 'text', text: 'x' }]))
    tools.register(raw('m', () => ({ content: [{ type: 'text', text: 'y' }], meta: { n: 1 } })))
    expect(await tools.execute(model('s', ''))).toEqual({ content: [{ type: 'text', text: 'hi' }], isError: false })
    expect((await tools.execute(model('b', ''))).content).toEqual([{ type: 'text', text: 'x' }])
    const m = await tools.execute(model('m', ''))
    expect(m).toEqual({ content: [{ type: 'text', text: 'y' }], isError: false, meta: { n: 1 } })
    expect(isDeepFrozen(m)).toBe(true)
  })
  it('content or meta whose reading throws is not lossless JSON either', async () => {
    const { tools } = load()
    const hostile = {
      type: 'text',
      get text(): string {
        throw new Error('getter exploded')
      },
    }
    tools.register(raw('c', () => [hostile] as never))
    tools.register(
      raw(
        'm',
        () =>
          ({
            content: [],
            meta: {
              get x(): number {
                throw new Error('boom')
              },
            },
          }) as never,
      ),
    )
    expect(text(await tools.execute(model('c', '')))).toBe('Error: tool result must be losslessly JSON-serializable')
    expect(text(await tools.execute(model('m', '')))).toBe('Error: tool result must be losslessly JSON-serializable')
  })
  it('a post-execute decision with hostile content becomes an error result, never a rejection', async () => {
    const { root, tools } = load()
    tools.register(raw('t', () => 'ok'))
    const hostile = {
      type: 'text',
      get text(): string {
        throw new Error('getter exploded')
      },
    }
    root.on('tools/post-execute', () => ({ kind: 'accept', content: [hostile] }) as never)
    const r = await tools.execute(model('t', ''))
    expect(r.isError).toBe(true)
  })
  it('an unsupported return and non-JSON content or meta give the spec texts', async () => {
    const { tools } = load()
    tools.register(raw('u', () => 42 as never))
    tools.register(raw('j', () => ({ content: [{ type: 'text', text: 'y' }], meta: { d: new Date(0) } }) as never))
    expect(text(await tools.execute(model('u', '')))).toBe('Error: tool "u" returned an unsupported value')
    expect(text(await tools.execute(model('j', '')))).toBe('Error: tool result must be losslessly JSON-serializable')
  })
})

describe('contexts and conclusion', () => {
  it('deferred contexts survive success, thrown errors and the cancellation override; accept contexts follow them', async () => {
    const { root, tools } = load()
    const d1 = ctxMsg('deferred')
    const extra = ctxMsg('extra')
    tools.register(raw('ok', (_a, e) => (e.deferContext(d1), 'ok')))
    tools.register(
      raw('bad', (_a, e) => {
        e.deferContext(d1)
        throw new Error('x')
      }),
    )
    root.on('tools/post-execute', (): PostToolDecision => ({ kind: 'accept', additionalContexts: [extra] }))
    expect((await tools.execute(model('ok', ''))).additionalContexts).toEqual([d1, extra])
    expect((await tools.execute(model('bad', ''))).additionalContexts).toEqual([d1, extra])
    const controller = new AbortController()
    tools.register(raw('cancel', (_a, e) => (e.deferContext(d1), controller.abort(), 'done')))
    const r = await tools.execute(model('cancel', '', { signal: controller.signal }))
    expect(r.error?.info?.code).toBe('ABORTED')
    expect(r.additionalContexts).toEqual([d1, extra])
  })
  it('accept may replace content; block gives isError with feedback, joined text, and only its own contexts', async () => {
    const { root, tools } = load()
    const d1 = ctxMsg('deferred')
    const own = ctxMsg('block ctx')
    tools.register(raw('acc', () => 'original'))
    tools.register(raw('blk', (_a, e) => (e.deferContext(d1), e.concludeTurn(), 'original')))
    root.on(
      'tools/post-execute',
      (e): PostToolDecision =>
        e.name === 'acc'
          ? { kind: 'accept', content: [{ type: 'text', text: 'rewritten' }] }
          : {
              kind: 'block',
              feedback: [
                { type: 'text', text: 'line one' },
                { type: 'text', text: 'line two' },
              ],
              additionalContexts: [own],
            },
    )
    expect(await tools.execute(model('acc', ''))).toEqual({
      content: [{ type: 'text', text: 'rewritten' }],
      isError: false,
    })
    expect(await tools.execute(model('blk', ''))).toEqual({
      content: [
        { type: 'text', text: 'line one' },
        { type: 'text', text: 'line two' },
      ],
      isError: true,
      error: { message: 'line one\nline two' },
      additionalContexts: [own],
    })
  })
  it('concludeTurn marks successes only', async () => {
    const { tools } = load()
    tools.register(raw('c', (_a, e) => (e.concludeTurn(), 'done')))
    tools.register(
      raw('f', (_a, e) => {
        e.concludeTurn()
        throw new Error('no')
      }),
    )
    expect((await tools.execute(model('c', ''))).concludesTurn).toBe(true)
    expect('concludesTurn' in (await tools.execute(model('f', '')))).toBe(false)
  })
})

describe('staged form', () => {
  it('prepare: final for stages 1–3 and a pre-execute throw, post for deny, dispatch otherwise', async () => {
    const { root, tools } = load()
    tools.register(raw('t', () => 'ok'))
    tools.register(raw('deny', () => 'ok'))
    tools.register(raw('throw', () => 'ok'))
    root.on('tools/pre-execute', (e, next) => {
      if (e.name === 'deny') return { kind: 'deny', reason: 'no' }
      if (e.name === 'throw') throw new Error('pre failed')
      return next()
    })
    const aborted = new AbortController()
    aborted.abort()
    expect((await tools.prepare(model('t', '', { signal: aborted.signal }))).stage).toBe('final')
    expect((await tools.prepare(model('missing', ''))).stage).toBe('final')
    expect((await tools.prepare(model('t', '['))).stage).toBe('final')
    expect((await tools.prepare(model('throw', ''))).stage).toBe('final')
    expect((await tools.prepare(model('deny', ''))).stage).toBe('post')
    const prepared = await tools.prepare(model('t', ''))
    expect(prepared.stage).toBe('dispatch')
    await prepared.dispatch()
    expect(await prepared.finalize()).toEqual({ content: [{ type: 'text', text: 'ok' }], isError: false })
  })
})
