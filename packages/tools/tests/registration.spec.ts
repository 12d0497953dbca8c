import { createScope } from '@bridle/scope'
import { ToolRegistry, type ToolDefinition } from '@bridle/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent, plugin, setup } from './helpers.js'

const noop = () => 'ok'
const def = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties: {} },
  execute: noop,
  ...extra,
})

describe('register: validation (nothing stored or emitted on failure)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['bad characters', { name: 'read file' }, 'invalid tool name "read file" (must match /^[a-zA-Z0-9_-]{1,64}$/)'],
    [
      'reserved rest marker',
      { name: '<unlisted-tools>' },
      'invalid tool name "<unlisted-tools>" (must match /^[a-zA-Z0-9_-]{1,64}$/)',
    ],
    ['empty name', { name: '' }, 'invalid tool name "" (must match /^[a-zA-Z0-9_-]{1,64}$/)'],
    [
      '65 characters',
      { name: 'a'.repeat(65) },
      `invalid tool name "${'a'.repeat(65)}" (must match /^[a-zA-Z0-9_-]{1,64}$/)`,
    ],
    ['non-string name', { name: 42 }, 'invalid tool name "42" (must match /^[a-zA-Z0-9_-]{1,64}$/)'],
    ['description', { description: undefined as never }, 'tool "t" description must be a string'],
    ['execute', { execute: 'run' as never }, 'tool "t" must have an execute function'],
    [
      'concurrencySafe',
      { concurrencySafe: 'yes' as never },
      'tool "t" concurrencySafe must be a boolean or a function',
    ],
    ['zod non-object root', { parameters: z.string() }, 'tool "t" parameters must describe a JSON object'],
    ['raw non-object root', { parameters: { type: 'array' } }, 'tool "t" parameters must describe a JSON object'],
    ['raw root without type', { parameters: { properties: {} } }, 'tool "t" parameters must describe a JSON object'],
    [
      'unrepresentable zod',
      { parameters: z.object({ when: z.date() }) },
      'tool "t" parameters cannot be converted to JSON Schema: Date cannot be represented in JSON Schema',
    ],
    [
      'non-JSON raw schema',
      { parameters: { type: 'object', default: () => 1 } },
      'tool "t" parameters must be a zod schema or a plain, losslessly JSON-serializable JSON Schema object',
    ],
    [
      'class-instance raw schema',
      {
        parameters: new (class Schema {
          type = 'object'
        })(),
      },
      'tool "t" parameters must be a zod schema or a plain, losslessly JSON-serializable JSON Schema object',
    ],
  ]
  for (const [label, patch, message] of cases) {
    it(`rejects ${label}`, () => {
      const { tools, changes } = setup()
      expect(() => tools.register({ ...def('t'), ...patch } as ToolDefinition)).toThrow(new TypeError(message))
      expect(changes()).toBe(0)
      expect(tools.schemas()).toEqual([])
    })
  }
  it('accepts names at the edges of the grammar', () => {
    const { tools } = setup()
    tools.register(def('a'))
    tools.register(def('A-b_9'.padEnd(64, 'x')))
    expect(tools.schemas().map((s) => s.name)).toEqual(['a', 'A-b_9'.padEnd(64, 'x')])
  })
})

describe('register: schema conversion', () => {
  it('converts zod with io:input, without $schema, deep-frozen and copied out fresh', () => {
    const { tools } = setup()
    tools.register({
      ...def('read_file'),
      parameters: z.object({
        path: z.string(),
        limit: z.number().int().optional(),
        mode: z.enum(['a', 'b']).default('a'),
      }),
    })
    const [schema] = tools.schemas()
    expect(schema!.parameters).not.toHaveProperty('$schema')
    expect(schema!.parameters.type).toBe('object')
    expect(schema!.parameters.required).toEqual(['path'])
    schema!.parameters.type = 'mutated'
    expect(tools.schemas()[0]!.parameters.type).toBe('object')
  })
  it('clones a raw JSON Schema so later edits by the caller have no effect', () => {
    const { tools } = setup()
    const parameters = { type: 'object', properties: { q: { type: 'string' } } }
    tools.register({ ...def('search'), parameters })
    parameters.properties.q.type = 'number'
    expect(tools.schemas()[0]!.parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } } })
  })
})

describe('register: layers, duplicates, shadows, lifetime', () => {
  it('rejects a global duplicate with the agent.ctx hint and leaves the first one', () => {
    const { tools, changes } = setup()
    tools.register(def('t'))
    expect(() => tools.register(def('t', { description: 'second' }))).toThrow(
      'tool "t" is already registered (for a per-agent variant, register through that agent\'s `agent.ctx` instead)',
    )
    expect(tools.get('t')!.description).toBe('the t tool')
    expect(changes()).toBe(1)
  })
  it('rejects a duplicate inside one scope, allows a scoped shadow of a global tool', () => {
    const { root, tools } = setup()
    const { agent: a, scope } = agent(root)
    tools.register(def('t'))
    scope.ctx.tools.register(def('t', { description: 'agent variant' }))
    expect(() => scope.ctx.tools.register(def('t'))).toThrow('tool "t" is already registered in this scope')
    expect(tools.get('t')!.description).toBe('the t tool')
    expect(tools.get('t', a)!.description).toBe('agent variant')
  })
  it('schemas(): global registration order, a shadow keeps its global slot, scope-only tools appended', () => {
    const { root, tools } = setup()
    const { agent: a, scope } = agent(root)
    tools.register(def('zeta'))
    tools.register(def('alpha'))
    scope.ctx.tools.register(def('extra'))
    scope.ctx.tools.register(def('zeta', { description: 'shadow' }))
    expect(tools.schemas(a).map((s) => [s.name, s.description])).toEqual([
      ['zeta', 'shadow'],
      ['alpha', 'the alpha tool'],
      ['extra', 'the extra tool'],
    ])
    expect(tools.schemas().map((s) => s.name)).toEqual(['zeta', 'alpha'])
  })
  it('a parent scope’s tools are visible to a child scope', () => {
    const { root, tools } = setup()
    const team = {}
    const bot = { session: { id: 'bot' } }
    createScope(root, team).ctx.tools.register(def('team_tool'))
    createScope(root, bot, { parent: team })
    expect(tools.get('team_tool', bot)).toBeDefined()
    expect(tools.get('team_tool')).toBeUndefined()
  })
  it('the disposer is idempotent and emits tools/change once per registration and removal', () => {
    const { tools, changes } = setup()
    const dispose = tools.register(def('t'))
    expect(changes()).toBe(1)
    dispose()
    dispose()
    expect(changes()).toBe(2)
    expect(tools.get('t')).toBeUndefined()
    tools.register(def('t'))
    expect(tools.get('t')).toBeDefined()
  })
  it('a throwing change listener rolls the registration back; both events fire for the registration and the undo', () => {
    const { root, tools } = setup()
    const log: string[] = []
    let veto = true
    root.on('tools/change', () => {
      log.push('tools/change')
      if (veto) {
        veto = false
        throw new Error('listener refused')
      }
    })
    root.on('system-prompt/change', () => void log.push('system-prompt/change'))
    expect(() => tools.register(def('t'))).toThrow('listener refused')
    expect(tools.get('t')).toBeUndefined()
    expect(log).toEqual(['tools/change', 'system-prompt/change', 'tools/change', 'system-prompt/change'])
    tools.register(def('t'))
    expect(tools.get('t')).toBeDefined()
  })
  it('unloading the registering plugin removes its tools', () => {
    const { root, tools, changes } = setup()
    const p = plugin(root)
    p.ctx.tools.register(def('a'))
    p.ctx.tools.register(def('b'))
    p.dispose()
    expect(tools.schemas()).toEqual([])
    expect(changes()).toBe(4)
  })
  it('disposing an agent scope removes the agent’s tools', async () => {
    const { root, tools } = setup()
    const { agent: a, scope } = agent(root)
    scope.ctx.tools.register(def('mine'))
    await scope.dispose()
    expect(tools.get('mine', a)).toBeUndefined()
  })
  it('registering through an inactive context throws the cordis inactive-context error', () => {
    const { root } = setup()
    const p = plugin(root)
    p.dispose()
    expect(() => p.ctx.tools.register(def('late'))).toThrow('cannot create effect on inactive context')
  })
  it('get() returns the registered definition view, undefined when absent', () => {
    const { tools } = setup()
    const execute = () => 'x'
    tools.register(def('t', { execute, concurrencySafe: true }))
    expect(tools.get('t')).toMatchObject({ name: 't', execute, concurrencySafe: true })
    expect(Object.isFrozen(tools.get('t'))).toBe(true)
    expect(tools.get('nope')).toBeUndefined()
  })
})

describe('feeding the system prompt', () => {
  it('the assembly lists global tools plus the agent’s own, in canonical order', async () => {
    const { root, tools } = setup()
    const { agent: a, scope } = agent(root)
    const { agent: b } = agent(root, 'b')
    tools.register(def('zeta'))
    tools.register(def('Alpha'))
    scope.ctx.tools.register(def('_mid'))
    expect((await root.systemPrompt.assemble({ scope: a })).tools.map((t) => t.name)).toEqual(['Alpha', '_mid', 'zeta'])
    expect((await root.systemPrompt.assemble({ scope: b })).tools.map((t) => t.name)).toEqual(['Alpha', 'zeta'])
    expect((await root.systemPrompt.assemble()).tools.map((t) => t.name)).toEqual(['Alpha', 'zeta'])
  })
  it('a disposed tool is absent from the next assembly', async () => {
    const { root, tools } = setup()
    const dispose = tools.register(def('gone'))
    tools.register(def('kept'))
    expect((await root.systemPrompt.assemble()).tools.map((t) => t.name)).toEqual(['gone', 'kept'])
    dispose()
    expect((await root.systemPrompt.assemble()).tools.map((t) => t.name)).toEqual(['kept'])
  })
  it('a toolOrder entry naming a tool the agent cannot see fails the assembly', async () => {
    const { root } = setup({ toolOrder: ['ghost', '<unlisted-tools>'] })
    await expect(root.systemPrompt.assemble()).rejects.toThrow(
      'toolOrder lists unregistered tool "ghost"; known tools: (none)',
    )
  })
  it('unloading the registry removes its provider', async () => {
    const { root, tools } = setup()
    tools.register(def('t'))
    const fork = [...root.registry.values()].find((r) => r.plugin === ToolRegistry)!
    fork.dispose()
    expect((await root.systemPrompt.assemble()).tools).toEqual([])
  })
  it('property: any registration order gives byte-identical assembled tools', async () => {
    const names = ['read_file', 'grep', 'Shell', 'plan', 'edit-file', '_hidden', 'a1', 'Z']
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(names, { minLength: names.length }), async (order) => {
        const first = setup()
        const second = setup()
        for (const n of names) first.tools.register(def(n, { parameters: z.object({ [n]: z.string() }) }))
        for (const n of order) second.tools.register(def(n, { parameters: z.object({ [n]: z.string() }) }))
        const a = JSON.stringify((await first.root.systemPrompt.assemble()).tools)
        const b = JSON.stringify((await second.root.systemPrompt.assemble()).tools)
        expect(b).toBe(a)
      }),
      { numRuns: 30 },
    )
  })
})
