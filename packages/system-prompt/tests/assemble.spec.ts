import { describe, expect, it, vi } from 'vitest'
import type { AssembleContext } from '../src/index.js'
import { plugin, scope, setup, tool } from './helpers.js'

const names = (list: { name: string }[]) => list.map((entry) => entry.name)

describe('assemble: entry and evaluation order', () => {
  it('rejects with signal.reason before any provider runs when already aborted', async () => {
    const { sp } = setup()
    const provider = vi.fn(() => 'v')
    sp.variable('v', provider)
    sp.tools(() => {
      throw new Error('must not run')
    })
    const controller = new AbortController()
    const reason = new Error('cancelled')
    controller.abort(reason)
    await expect(sp.assemble({ signal: controller.signal })).rejects.toBe(reason)
    expect(provider).not.toHaveBeenCalled()
  })

  it('evaluates global variables, scoped variables, tools, section texts, context texts, then the waterfall', async () => {
    const { root, sp } = setup()
    const s = scope(root)
    const log: string[] = []
    s.ctx.systemPrompt.section({ name: 'ss', order: 1, text: () => (log.push('scoped section'), '') })
    s.ctx.systemPrompt.context({ name: 'sc', order: 1, text: () => (log.push('scoped context'), '') })
    s.ctx.systemPrompt.tools(() => (log.push('scoped tools'), { schemas: [] }))
    s.ctx.systemPrompt.variable('sv', () => (log.push('scoped variable'), ''))
    root.on('system-prompt/assemble', (_assembly, _context, next) => (log.push('waterfall'), next()))
    sp.context({ name: 'gc', order: 0, text: () => (log.push('global context'), '') })
    sp.section({ name: 'gs', order: 0, text: () => (log.push('global section'), '') })
    sp.tools(() => (log.push('global tools'), { schemas: [] }))
    sp.variable('gv', () => (log.push('global variable'), ''))
    await sp.assemble({ scope: s.key })
    expect(log).toEqual([
      'global variable',
      'scoped variable',
      'global tools',
      'scoped tools',
      'global section',
      'scoped section',
      'global context',
      'scoped context',
      'waterfall',
    ])
  })

  it('providers and listeners receive the very context object; no argument gives a fresh {} each time', async () => {
    const { root, sp } = setup()
    const seen: unknown[] = []
    sp.variable('v', (c) => (seen.push(c), ''))
    sp.tools((c) => (seen.push(c), { schemas: [] }))
    sp.section({ name: 's', order: 1, text: (c) => (seen.push(c), '') })
    sp.context({ name: 'c', order: 1, text: (c) => (seen.push(c), '') })
    root.on('system-prompt/assemble', (_a, c, next) => (seen.push(c), next()))
    const context: AssembleContext & { agent?: string } = { agent: 'bot' }
    await sp.assemble(context)
    expect(seen).toHaveLength(5)
    for (const c of seen) expect(c).toBe(context)
    seen.length = 0
    await sp.assemble()
    await sp.assemble()
    expect(seen[0]).toEqual({})
    expect(seen[0]).not.toBe(seen[5])
  })

  it('a synchronous provider throw arrives as a rejection', async () => {
    const { sp } = setup()
    sp.variable('v', () => {
      throw new Error('provider broke')
    })
    let promise: Promise<unknown> | undefined
    expect(() => {
      promise = sp.assemble()
    }).not.toThrow()
    await expect(promise).rejects.toThrow('provider broke')
  })

  it('text providers of effective entries run exactly once per assembly', async () => {
    const { sp } = setup()
    const text = vi.fn(() => 'T')
    const ctx = vi.fn(() => 'C')
    sp.section({ name: 's', order: 1, text })
    sp.context({ name: 'c', order: 1, text: ctx })
    await sp.assemble()
    expect(text).toHaveBeenCalledTimes(1)
    expect(ctx).toHaveBeenCalledTimes(1)
  })
})

describe('assemble: variables', () => {
  it('values must be strings or undefined; undefined keeps the key', async () => {
    const { sp } = setup()
    sp.variable('none', () => undefined)
    expect((await sp.assemble()).variables).toEqual({ none: undefined })
    expect(Object.keys((await sp.assemble()).variables)).toEqual(['none'])
    sp.variable('bad', () => 42 as never)
    await expect(sp.assemble()).rejects.toThrow(new TypeError('assembled variable "bad" must be a string or undefined'))
  })

  it('a variable registered mid-loop into a live table is evaluated in the same assembly', async () => {
    const { sp } = setup()
    let registered = false
    sp.variable('first', () => {
      if (!registered) {
        registered = true
        sp.variable('late', () => 'late value')
      }
      return 'f'
    })
    expect((await sp.assemble()).variables).toEqual({ first: 'f', late: 'late value' })
  })

  it('a replacement registered after its table drained is evaluated only from the next assembly', async () => {
    const { sp } = setup()
    const replacement = vi.fn(() => 'new')
    const dispose = sp.variable('only', () => {
      dispose()
      sp.variable('only', replacement)
      return 'old'
    })
    expect((await sp.assemble()).variables).toEqual({ only: 'old' })
    expect(replacement).not.toHaveBeenCalled()
    expect((await sp.assemble()).variables).toEqual({ only: 'new' })
  })

  it('a variable provider that registers a section affects this assembly; a text provider that does only the next', async () => {
    const { sp } = setup()
    let once = true
    sp.variable('v', () => {
      if (once) sp.section({ name: 'from-variable', order: 50, text: 'X' })
      once = false
      return ''
    })
    let registered = false
    sp.section({
      name: 'registrar',
      order: 60,
      text: () => {
        if (!registered) sp.section({ name: 'from-text', order: 70, text: 'Y' })
        registered = true
        return ''
      },
    })
    const first = await sp.assemble()
    expect(names(first.sections)).toContain('from-variable')
    expect(names(first.sections)).not.toContain('from-text')
    expect(names((await sp.assemble()).sections)).toContain('from-text')
  })
})

describe('assemble: tools', () => {
  it('the chapter case: zulu, alpha, mike from separate plugins assemble as alpha, mike, zulu', async () => {
    for (const order of [
      ['zulu', 'alpha', 'mike'],
      ['mike', 'zulu', 'alpha'],
      ['alpha', 'mike', 'zulu'],
    ]) {
      const { root, sp } = setup()
      for (const name of order) plugin(root).ctx.systemPrompt.tools(() => ({ schemas: [tool(name)] }))
      expect(names((await sp.assemble()).tools)).toEqual(['alpha', 'mike', 'zulu'])
    }
  })

  it('rebuilds each schema with exactly name, description and structuredClone(parameters)', async () => {
    const { sp } = setup()
    const parameters = { type: 'object', properties: { path: { type: 'string' } } }
    const schema = { name: 'read', description: 'Read a file', parameters, extra: 'dropped' }
    sp.tools(() => ({ schemas: [schema] }))
    const a = await sp.assemble()
    expect(a.tools).toEqual([{ name: 'read', description: 'Read a file', parameters }])
    expect(Object.keys(a.tools[0]!)).toEqual(['name', 'description', 'parameters'])
    expect(a.tools[0]).not.toBe(schema)
    expect(a.tools[0]!.parameters).not.toBe(parameters)
    expect(a.tools[0]!.parameters.properties).not.toBe(parameters.properties)
    ;(a.tools[0]!.parameters.properties as Record<string, unknown>).path = 'mutated'
    expect(parameters.properties.path).toEqual({ type: 'string' })
  })

  it('parameters that cannot be cloned reject with DataCloneError', async () => {
    const { sp } = setup()
    sp.tools(() => ({ schemas: [{ name: 'f', description: '', parameters: { fn: () => 1 } }] }))
    await expect(sp.assemble()).rejects.toMatchObject({ name: 'DataCloneError' })
  })

  it('rejects a malformed provider result or a nameless schema', async () => {
    for (const result of [undefined, null, 'x', {}, { schemas: 'x' }]) {
      const { sp } = setup()
      sp.tools(() => result as never)
      await expect(sp.assemble()).rejects.toThrow(
        new TypeError('prompt tool provider must return { schemas: ToolSchema[] }'),
      )
    }
    for (const schema of [{ name: '' }, { name: 3 }, null, {}]) {
      const { sp } = setup()
      sp.tools(() => ({ schemas: [schema as never] }))
      await expect(sp.assemble()).rejects.toThrow(new TypeError('assembled tool names must be non-empty'))
    }
  })

  it('keeps duplicate names; knownNames replaces the schema names', async () => {
    const { sp } = setup({ toolOrder: ['<unlisted-tools>', 'hidden'] })
    sp.tools(() => ({ schemas: [tool('dup')], knownNames: ['dup', 'hidden'] }))
    sp.tools(() => ({ schemas: [tool('dup')] }))
    expect(names((await sp.assemble()).tools)).toEqual(['dup', 'dup'])
  })

  it('toolOrder: unregistered names reject the assembly with the known tools; restricted-but-known are absent', async () => {
    const { sp } = setup({ toolOrder: ['plan', 'write', '<unlisted-tools>'] })
    sp.tools(() => ({ schemas: [tool('shell'), tool('plan')] }))
    await expect(sp.assemble()).rejects.toThrow('toolOrder lists unregistered tool "write"; known tools: plan, shell')
    sp.tools(() => ({ schemas: [], knownNames: ['write'] }))
    expect(names((await sp.assemble()).tools)).toEqual(['plan', 'shell'])
  })

  it('tool errors reject before any text provider runs', async () => {
    for (const config of [{}, { toolOrder: ['ghost', '<unlisted-tools>'] }]) {
      const { sp } = setup(config)
      const text = vi.fn(() => '')
      sp.section({ name: 's', order: 1, text })
      sp.context({ name: 'c', order: 1, text })
      sp.tools(() => ({ schemas: [tool('<unlisted-tools>')] }))
      await expect(sp.assemble()).rejects.toThrow(/reserved tool name|unregistered tool/)
      expect(text).not.toHaveBeenCalled()
    }
  })

  it('the multiple-complete error takes precedence over tool errors', async () => {
    const { sp } = setup()
    sp.section({ name: 'a', order: 1, text: '', complete: true })
    sp.section({ name: 'b', order: 0, text: '', complete: true })
    sp.tools(() => ({ schemas: [tool('<unlisted-tools>')] }))
    await expect(sp.assemble()).rejects.toThrow('multiple complete prompt sections are active: "b", "a"')
  })

  it('a provider registered while tools are collected counts only from the next assembly', async () => {
    const { sp } = setup()
    let once = true
    sp.tools(() => {
      if (once) sp.tools(() => ({ schemas: [tool('late')] }))
      once = false
      return { schemas: [tool('first')] }
    })
    expect(names((await sp.assemble()).tools)).toEqual(['first'])
    expect(names((await sp.assemble()).tools)).toEqual(['first', 'late'])
  })
})

describe('assemble: sections and contexts', () => {
  it('sorts stably by order, fractional orders included; built-ins at -100 and 0; empty texts kept', async () => {
    const { sp } = setup()
    sp.section({ name: 'guide', order: 150, text: 'G' })
    sp.section({ name: 'first', order: -200, text: 'F' })
    sp.section({ name: 'mid', order: -50.5, text: 'M' })
    sp.section({ name: 'tie', order: 150, text: 'T' })
    const a = await sp.assemble()
    expect(a.sections).toEqual([
      { name: 'first', text: 'F' },
      { name: 'harness:identity', text: 'You are an AI agent powered by Bridle.' },
      { name: 'mid', text: 'M' },
      { name: 'deployment:persona', text: '' },
      { name: 'guide', text: 'G' },
      { name: 'tie', text: 'T' },
    ])
  })

  it('includeHarnessIdentity: false leaves the identity out; the persona is a template', async () => {
    const { sp } = setup({ includeHarnessIdentity: false, persona: 'You help {{user}}.' })
    sp.variable('user', () => 'Ada')
    const a = await sp.assemble()
    expect(a.sections).toEqual([{ name: 'deployment:persona', text: 'You help {{user}}.' }])
  })

  it('non-string text results reject', async () => {
    const s1 = setup()
    s1.sp.section({ name: 'bad', order: 1, text: () => 5 as never })
    await expect(s1.sp.assemble()).rejects.toThrow(new TypeError('assembled section "bad" text must be a string'))
    const s2 = setup()
    s2.sp.context({ name: 'env', order: 1, text: () => undefined as never })
    await expect(s2.sp.assemble()).rejects.toThrow(new TypeError('assembled context "env" text must be a string'))
  })

  it('contexts are sorted by order and keep empty texts', async () => {
    const { sp } = setup()
    sp.context({ name: 'git', order: 20, text: 'git: clean' })
    sp.context({ name: 'cwd', order: 10, text: () => 'cwd: /w' })
    sp.context({ name: 'blank', order: 30, text: '' })
    expect((await sp.assemble()).contexts).toEqual([
      { name: 'cwd', text: 'cwd: /w' },
      { name: 'git', text: 'git: clean' },
      { name: 'blank', text: '' },
    ])
  })
})

describe('assemble: dry assemblies', () => {
  it('calls no context provider in a dry assembly, keeps fixed context texts, and passes the flag to other providers', async () => {
    const { sp } = setup()
    let ticks = 0
    sp.context({ name: 'tick', order: 1, text: () => `tick: ${++ticks}` })
    sp.context({ name: 'fixed', order: 2, text: 'always here' })
    const seen: (boolean | undefined)[] = []
    sp.section({ name: 's', order: 1, text: (context) => (seen.push(context.dry), 'section') })
    const dry = await sp.assemble({ dry: true })
    expect(ticks).toBe(0)
    expect(dry.contexts).toEqual([{ name: 'fixed', text: 'always here' }])
    expect(seen).toEqual([true])
    const step = await sp.assemble({})
    expect(step.contexts).toEqual([
      { name: 'tick', text: 'tick: 1' },
      { name: 'fixed', text: 'always here' },
    ])
    expect(ticks).toBe(1)
  })
})
