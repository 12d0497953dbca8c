/**
 * Black-box conformance with the package's documented contract (README.md): every check imports only the public
 * entry and pins the exact names, messages, orders and examples.
 */
import { ConfigError } from '@bridle/llm'
import { createScope } from '@bridle/scope'
import DefaultExport, {
  ConfigSchema,
  IDENTITY_ORDER,
  IDENTITY_SECTION,
  joinContextSections,
  orderTools,
  PERSONA_ORDER,
  PERSONA_SECTION,
  renderContextSections,
  renderContextSnapshot,
  renderPrompt,
  RUNTIME_CONTEXT_HEADER,
  SystemPrompt,
  SystemPromptConfigSchema,
  TOOL_ORDER_REST,
  validateToolOrder,
  type AssembleContext,
  type PromptAssembly,
} from '@bridle/system-prompt'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { takeLogLines } from '../../../tests/support/logs.js'

const HEADER = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
const t = (name: string, description = `${name} tool`) => ({ name, description, parameters: { type: 'object' } })

function load(config?: unknown) {
  const root = new Context()
  let changes = 0
  root.on('system-prompt/change', () => void changes++)
  root.plugin(SystemPrompt, config as never) // bad configs on purpose
  return { root, sp: root.systemPrompt, changes: () => changes }
}

function scopeOf(root: Context, parent?: object) {
  const key = {}
  return { key, scope: createScope(root, key, parent ? { parent } : undefined) }
}

/** Sections and contexts of an assembly as `[name, text]` pairs. */
const pairs = (list: readonly { name: string; text: string }[]) => list.map((e) => [e.name, e.text])

describe('public API: exports and constants', () => {
  it('exports the plugin as named and default export and the spec constants', () => {
    expect(DefaultExport).toBe(SystemPrompt)
    expect(IDENTITY_SECTION).toBe('harness:identity')
    expect(IDENTITY_ORDER).toBe(-100)
    expect(PERSONA_SECTION).toBe('deployment:persona')
    expect(PERSONA_ORDER).toBe(0)
    expect(TOOL_ORDER_REST).toBe('<unlisted-tools>')
    expect(RUNTIME_CONTEXT_HEADER).toBe(HEADER)
    expect(SystemPromptConfigSchema).toBe(ConfigSchema)
  })
  it('provides ctx.systemPrompt through ctx.plugin', () => {
    const { root } = load()
    expect(root.systemPrompt).toBeInstanceOf(SystemPrompt)
  })
})

describe('construction, built-ins and configuration', () => {
  it('registers identity (-100) and persona (0) with the spec text, one change event each', async () => {
    const { sp, changes } = load({ persona: 'Be brief.' })
    expect(changes()).toBe(2)
    const a = await sp.assemble()
    expect(pairs(a.sections)).toEqual([
      ['harness:identity', 'You are an AI agent powered by Bridle.'],
      ['deployment:persona', 'Be brief.'],
    ])
    expect(renderPrompt(a)).toBe('You are an AI agent powered by Bridle.\n\nBe brief.')
  })
  it('the constructor emits its change events before ctx.systemPrompt is set', () => {
    const root = new Context()
    const seen: unknown[] = []
    root.on('system-prompt/change', () => void seen.push(root.get('systemPrompt')))
    root.plugin(SystemPrompt)
    expect(seen).toEqual([undefined, undefined])
    expect(root.get('systemPrompt')).toBeInstanceOf(SystemPrompt)
  })
  it('emits 3 change events with includeRuntimeContext: false, and no contexts are ever assembled', async () => {
    const { root, sp, changes } = load({ includeRuntimeContext: false })
    expect(changes()).toBe(3)
    const { key, scope } = scopeOf(root)
    sp.context({ name: 'cwd', order: 0, text: 'cwd: /w' })
    expect((await sp.assemble()).contexts).toEqual([])
    expect((await sp.assemble({ scope: key })).contexts).toEqual([])
    scope.dispose()
  })
  it('includeHarnessIdentity: false leaves only the persona; an empty persona renders nothing', async () => {
    const { sp } = load({ includeHarnessIdentity: false })
    const a = await sp.assemble()
    expect(pairs(a.sections)).toEqual([['deployment:persona', '']])
    expect(renderPrompt(a)).toBe('')
  })
  it('re-registering a built-in globally throws; a scope may shadow it', async () => {
    const { root, sp } = load({ persona: 'global' })
    expect(() => sp.section({ name: 'deployment:persona', order: 0, text: 'x' })).toThrow(
      'prompt section "deployment:persona" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
    )
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'scoped' })
    expect(renderPrompt(await sp.assemble({ scope: key }))).toContain('scoped')
    expect(renderPrompt(await sp.assemble())).toContain('global')
  })
  it('Config is a plain function: defaults, null counts as absent, idempotent on its own output', () => {
    const Config = SystemPrompt.Config
    const defaults = Config(undefined)
    expect(defaults).toEqual({ includeHarnessIdentity: true, includeRuntimeContext: true, persona: '' })
    expect('toolOrder' in defaults).toBe(false)
    expect(Config(null)).toEqual(defaults)
    expect(Config({ persona: null, toolOrder: null, includeHarnessIdentity: null })).toEqual(defaults)
    const full = Config({ persona: 'p', toolOrder: ['a', '<unlisted-tools>'], includeRuntimeContext: false })
    expect(Config(full)).toEqual(full)
  })
  it('shape errors throw ConfigError INVALID_CONFIG naming the plugin and field, with zod issues', () => {
    let error: unknown
    try {
      SystemPrompt.Config({ toolOrder: 'plan' } as never)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const e = error as ConfigError
    expect(e.name).toBe('ConfigError')
    expect(e.code).toBe('INVALID_CONFIG')
    expect(e.message).toBe('system-prompt: invalid config: toolOrder: expected array, received string')
    expect(e.issues.map((i) => i.path)).toEqual([['toolOrder']])
  })
  it('unknown keys (a typo like tooOrder) fail loudly', () => {
    expect(() => SystemPrompt.Config({ tooOrder: ['<unlisted-tools>'] } as never)).toThrow(ConfigError)
    expect(() => SystemPrompt.Config({ tooOrder: ['<unlisted-tools>'] } as never)).toThrow(
      /system-prompt: invalid config: .*tooOrder/,
    )
  })
  it('toolOrder rules run at config time with plain Errors', () => {
    expect(() => SystemPrompt.Config({ toolOrder: [] })).toThrow(
      new Error('toolOrder must contain the "<unlisted-tools>" rest entry (where unlisted tools are inserted)'),
    )
    expect(() => SystemPrompt.Config({ toolOrder: ['a', '<unlisted-tools>', 'a'] })).toThrow(
      new Error('toolOrder lists "a" more than once'),
    )
    expect(() => SystemPrompt.Config({ toolOrder: ['<unlisted-tools>', '<unlisted-tools>'] })).toThrow(
      new Error('toolOrder lists "<unlisted-tools>" more than once'),
    )
  })
  it('a direct construction with a bad config throws synchronously and provides nothing', () => {
    const root = new Context()
    let changes = 0
    root.on('system-prompt/change', () => void changes++)
    expect(() => new SystemPrompt(root, { persona: 3 } as never)).toThrow(ConfigError)
    expect(changes).toBe(0)
    expect(root.get('systemPrompt')).toBeUndefined()
  })
  it('ctx.plugin with a bad config marks the fork failed, emits internal/error, leaves ctx.systemPrompt unset', () => {
    const root = new Context()
    const errors: unknown[] = []
    root.on('internal/error', (e: unknown) => void errors.push(e))
    const fork = root.plugin(SystemPrompt, { tooOrder: [] } as never)
    expect(fork.error).toBeInstanceOf(ConfigError)
    expect(errors.some((e) => e instanceof ConfigError)).toBe(true)
    expect(root.get('systemPrompt')).toBeUndefined()
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: system-prompt: invalid config: (root): Unrecognized key: "tooOrder"',
    ])
  })
})

describe('registration', () => {
  it('section checks run in spec order with the spec messages', () => {
    const { sp, changes } = load()
    const before = changes()
    expect(() => sp.section({ name: '', order: Number.NaN, text: 5 } as never)).toThrow(
      new TypeError('prompt section name must be a non-empty string'),
    )
    expect(() => sp.section({ name: 's', order: Number.NaN, text: 5 } as never)).toThrow(
      new TypeError('prompt section "s" order must be a finite number'),
    )
    expect(() => sp.section({ name: 's', order: Infinity, text: 'x' })).toThrow(
      new TypeError('prompt section "s" order must be a finite number'),
    )
    expect(() => sp.section({ name: 's', order: '1', text: 'x' } as never)).toThrow(
      new TypeError('prompt section "s" order must be a finite number'),
    )
    expect(() => sp.section({ name: 's', order: 1, text: 5 } as never)).toThrow(
      new TypeError('prompt section "s" text must be a string or a function'),
    )
    expect(changes()).toBe(before)
  })
  it('context messages say "context"', () => {
    const { root, sp } = load()
    expect(() => sp.context({ name: 7, order: 1, text: '' } as never)).toThrow(
      new TypeError('prompt context name must be a non-empty string'),
    )
    expect(() => sp.context({ name: 'c', order: -Infinity, text: '' })).toThrow(
      new TypeError('prompt context "c" order must be a finite number'),
    )
    expect(() => sp.context({ name: 'c', order: 1, text: null } as never)).toThrow(
      new TypeError('prompt context "c" text must be a string or a function'),
    )
    sp.context({ name: 'c', order: 1, text: '' })
    expect(() => sp.context({ name: 'c', order: 1, text: '' })).toThrow(
      'prompt context "c" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
    )
    const { scope } = scopeOf(root)
    scope.ctx.systemPrompt.context({ name: 'c', order: 1, text: '' })
    expect(() => scope.ctx.systemPrompt.context({ name: 'c', order: 1, text: '' })).toThrow(
      'prompt context "c" is already registered in this scope',
    )
  })
  it('duplicate sections: global message mentions agent.ctx, scoped message does not name the scope', () => {
    const { root, sp } = load()
    sp.section({ name: 'rules', order: 1, text: 'a' })
    expect(() => sp.section({ name: 'rules', order: 2, text: 'b' })).toThrow(
      new Error(
        'prompt section "rules" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
      ),
    )
    const { scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'rules', order: 1, text: 'scoped' })
    expect(() => scope.ctx.systemPrompt.section({ name: 'rules', order: 1, text: 'again' })).toThrow(
      new Error('prompt section "rules" is already registered in this scope'),
    )
  })
  it('variable checks and duplicate messages', () => {
    const { root, sp } = load()
    expect(() => sp.variable(undefined as never, () => 'x')).toThrow(
      new Error('invalid prompt variable name "undefined" (must match /^[a-z][a-z0-9_]*$/)'),
    )
    for (const bad of ['Model', '1a', 'a-b', '', '_x']) {
      expect(() => sp.variable(bad, () => 'x')).toThrow(
        new Error(`invalid prompt variable name "${bad}" (must match /^[a-z][a-z0-9_]*$/)`),
      )
    }
    expect(() => sp.variable('model', 'm' as never)).toThrow(
      new TypeError('prompt variable "model" provider must be a function'),
    )
    sp.variable('model', () => 'm')
    expect(() => sp.variable('model', () => 'n')).toThrow(
      new Error(
        'prompt variable "model" is already registered (for a per-agent value, register through that agent\'s `agent.ctx` instead)',
      ),
    )
    const { scope } = scopeOf(root)
    scope.ctx.systemPrompt.variable('model', () => 's')
    expect(() => scope.ctx.systemPrompt.variable('model', () => 't')).toThrow(
      new Error('prompt variable "model" is already registered in this scope'),
    )
  })
  it('tools(provider) checks only that the provider is a function', () => {
    const { sp } = load()
    expect(() => sp.tools({} as never)).toThrow(new TypeError('prompt tool provider must be a function'))
  })
  it('the disposer is synchronous, idempotent, not thenable; one change event per registration and disposal', async () => {
    const { sp, changes } = load()
    const base = changes()
    const dispose = sp.section({ name: 's', order: 1, text: 'S' })
    expect(changes()).toBe(base + 1)
    expect((dispose as unknown as { then?: unknown }).then).toBeUndefined()
    expect(dispose()).toBeUndefined()
    expect(changes()).toBe(base + 2)
    dispose()
    expect(changes()).toBe(base + 2)
    expect((await sp.assemble()).sections.map((s) => s.name)).not.toContain('s')
  })
  it('change events fire for invisible changes too (a second suppressor, a shadowed entry)', () => {
    const { root, sp, changes } = load()
    const base = changes()
    sp.suppressRuntimeContext()
    sp.suppressRuntimeContext()
    const { scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: '' })
    expect(changes()).toBe(base + 3)
  })
  it('definitions are copied: later mutation of the caller’s object has no effect', async () => {
    const { sp } = load()
    const def = { name: 'copy', order: 1, text: 'before', complete: false }
    sp.section(def)
    def.text = 'after'
    def.order = -1000
    def.complete = true
    const a = await sp.assemble()
    expect(pairs(a.sections)).toContainEqual(['copy', 'before'])
    expect(a.sections.at(-1)?.name).toBe('copy')
  })
  it('only complete === true counts as complete', async () => {
    const { sp } = load()
    sp.section({ name: 'x', order: 1, text: 'X', complete: 'yes' } as never)
    expect((await sp.assemble()).sections).toHaveLength(3)
  })
  it('registering through a disposed fiber throws CordisError INACTIVE_EFFECT', () => {
    const { root } = load()
    let captured!: Context
    const fork = root.plugin({ inject: ['systemPrompt'], apply: (ctx: Context) => void (captured = ctx) })
    fork.dispose()
    let error: unknown
    try {
      captured.systemPrompt.section({ name: 'late', order: 1, text: '' })
    } catch (e) {
      error = e
    }
    expect((error as { code?: string }).code).toBe('INACTIVE_EFFECT')
    expect((error as Error).message).toBe('cannot create effect on inactive context')
  })
  it('plugin disposal removes every contribution and emits once per registration', async () => {
    const { root, sp, changes } = load()
    let captured!: Context
    const fork = root.plugin({ inject: ['systemPrompt'], apply: (ctx: Context) => void (captured = ctx) })
    captured.systemPrompt.section({ name: 'p:s', order: 1, text: 'S' })
    captured.systemPrompt.context({ name: 'p:c', order: 1, text: 'C' })
    captured.systemPrompt.variable('pv', () => 'v')
    captured.systemPrompt.tools(() => ({ schemas: [t('p_tool')] }))
    captured.systemPrompt.suppressRuntimeContext()
    const base = changes()
    fork.dispose()
    expect(changes()).toBe(base + 5)
    const a = await sp.assemble()
    expect(a.sections.map((s) => s.name)).toEqual(['harness:identity', 'deployment:persona'])
    expect(a.contexts).toEqual([])
    expect(a.tools).toEqual([])
    expect(a.variables).toEqual({})
  })
  it('a listener throw during registration: caller gets the error, nothing is left, a retry works', async () => {
    const { root, sp } = load()
    const boom = new Error('listener boom')
    let fail = true
    let events = 0
    root.on('system-prompt/change', () => {
      events++
      if (fail) {
        fail = false
        throw boom
      }
    })
    expect(() => sp.section({ name: 'r', order: 1, text: 'R' })).toThrow(boom)
    expect(events).toBe(2) // notify → undo → notify
    expect((await sp.assemble()).sections.map((s) => s.name)).not.toContain('r')
    sp.section({ name: 'r', order: 1, text: 'R' })
    expect((await sp.assemble()).sections.map((s) => s.name)).toContain('r')
  })
  it('a scope’s Scope.dispose() removes its registrations', async () => {
    const { root, sp, changes } = load()
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'only-here', order: 1, text: 'x' })
    const base = changes()
    await scope.dispose()
    expect(changes()).toBe(base + 1)
    expect((await sp.assemble({ scope: key })).sections.map((s) => s.name)).not.toContain('only-here')
  })
})

describe('scope view', () => {
  it('tie order with a shadow', async () => {
    const { root, sp } = load()
    const calls: string[] = []
    sp.section({ name: 'intro', order: 5, text: () => (calls.push('global intro'), 'global intro') })
    sp.section({ name: 'rules', order: 5, text: 'rules' })
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'extras', order: 5, text: 'extras' })
    scope.ctx.systemPrompt.section({ name: 'intro', order: 5, text: 'scope intro' })
    const scoped = await sp.assemble({ scope: key })
    expect(
      pairs(scoped.sections.filter((s) => s.name !== 'harness:identity' && s.name !== 'deployment:persona')),
    ).toEqual([
      ['extras', 'extras'],
      ['intro', 'scope intro'],
      ['rules', 'rules'],
    ])
    expect(calls).toEqual([])
    const global = await sp.assemble()
    expect(global.sections.slice(2).map((s) => s.name)).toEqual(['intro', 'rules'])
  })
  it('entries with equal order sort by name, whatever layer they come from', async () => {
    const { root, sp } = load()
    const parent = scopeOf(root)
    const child = scopeOf(root, parent.key)
    child.scope.ctx.systemPrompt.section({ name: 'child', order: 1, text: 'c' })
    parent.scope.ctx.systemPrompt.section({ name: 'parent', order: 1, text: 'p' })
    sp.section({ name: 'global', order: 1, text: 'g' })
    const a = await sp.assemble({ scope: child.key })
    expect(a.sections.slice(2).map((s) => s.name)).toEqual(['child', 'global', 'parent'])
  })
  it('sibling and descendant layers are invisible; an unknown key yields the global view', async () => {
    const { root, sp } = load()
    const parent = scopeOf(root)
    const child = scopeOf(root, parent.key)
    const sibling = scopeOf(root)
    child.scope.ctx.systemPrompt.section({ name: 'child', order: 1, text: 'c' })
    sibling.scope.ctx.systemPrompt.section({ name: 'sibling', order: 1, text: 's' })
    expect((await sp.assemble({ scope: parent.key })).sections).toHaveLength(2)
    expect((await sp.assemble({ scope: {} })).sections).toHaveLength(2)
  })
  it('a scoped non-complete shadow switches complete mode off for that scope only', async () => {
    const { root, sp } = load()
    sp.section({ name: 'exact', order: 10, text: 'EXACT', complete: true })
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.section({ name: 'exact', order: 10, text: 'scoped' })
    expect(pairs((await sp.assemble()).sections)).toEqual([['exact', 'EXACT']])
    expect((await sp.assemble({ scope: key })).sections.map((s) => s.name)).toEqual([
      'harness:identity',
      'deployment:persona',
      'exact',
    ])
  })
  it('variables: shadowed providers never run; the key sits at its effective layer’s position', async () => {
    const { root, sp } = load()
    const calls: string[] = []
    sp.variable('a', () => (calls.push('global a'), 'ga'))
    sp.variable('b', () => (calls.push('global b'), 'gb'))
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.variable('a', () => (calls.push('scoped a'), 'sa'))
    const a = await sp.assemble({ scope: key })
    expect(calls).toEqual(['global b', 'scoped a'])
    expect(Object.keys(a.variables)).toEqual(['b', 'a'])
    expect(a.variables).toEqual({ a: 'sa', b: 'gb' })
  })
  it('tool providers are never shadowed: global first, then farthest to nearest', async () => {
    const { root, sp } = load()
    const parent = scopeOf(root)
    const child = scopeOf(root, parent.key)
    child.scope.ctx.systemPrompt.tools(() => ({ schemas: [t('same', 'child')] }))
    parent.scope.ctx.systemPrompt.tools(() => ({ schemas: [t('same', 'parent')] }))
    sp.tools(() => ({ schemas: [t('same', 'global')] }))
    const a = await sp.assemble({ scope: child.key })
    expect(a.tools.map((x) => x.description)).toEqual(['global', 'parent', 'child'])
  })
  it('a scoped suppressor hides contexts for that scope; contexts return once it is disposed', async () => {
    const { root, sp } = load()
    sp.context({ name: 'cwd', order: 1, text: 'cwd: /w' })
    const { key, scope } = scopeOf(root)
    const d1 = scope.ctx.systemPrompt.suppressRuntimeContext()
    const d2 = scope.ctx.systemPrompt.suppressRuntimeContext()
    expect((await sp.assemble({ scope: key })).contexts).toEqual([])
    expect(pairs((await sp.assemble()).contexts)).toEqual([['cwd', 'cwd: /w']])
    d1()
    expect((await sp.assemble({ scope: key })).contexts).toEqual([])
    d2()
    expect(pairs((await sp.assemble({ scope: key })).contexts)).toEqual([['cwd', 'cwd: /w']])
  })
})

describe('assembly algorithm', () => {
  it('evaluation order: global variables, scoped variables, tool providers, section texts, context texts, waterfall', async () => {
    const { root, sp } = load()
    const log: string[] = []
    const { key, scope } = scopeOf(root)
    scope.ctx.systemPrompt.context({ name: 'ctx', order: 1, text: () => (log.push('context'), 'c') })
    scope.ctx.systemPrompt.section({ name: 'sec', order: 1, text: () => (log.push('section'), 's') })
    scope.ctx.systemPrompt.tools(() => (log.push('tools'), { schemas: [] }))
    scope.ctx.systemPrompt.variable('scoped', () => (log.push('scoped variable'), 'v'))
    sp.variable('global', () => (log.push('global variable'), 'v'))
    root.on('system-prompt/assemble', (_a, _c, next) => (log.push('waterfall'), next()))
    await sp.assemble({ scope: key })
    expect(log).toEqual(['global variable', 'scoped variable', 'tools', 'section', 'context', 'waterfall'])
  })
  it('providers and listeners receive the very object passed to assemble(); no argument gives a fresh {}', async () => {
    const { root, sp } = load()
    const seen: AssembleContext[] = []
    sp.variable('v', (c) => (seen.push(c), 'x'))
    sp.tools((c) => (seen.push(c), { schemas: [] }))
    sp.section({ name: 's', order: 1, text: (c) => (seen.push(c), '') })
    sp.context({ name: 'c', order: 1, text: (c) => (seen.push(c), '') })
    root.on('system-prompt/assemble', (_a, c, next) => (seen.push(c), next()))
    const context: AssembleContext = {}
    await sp.assemble(context)
    expect(seen).toHaveLength(5)
    expect(seen.every((c) => c === context)).toBe(true)
    seen.length = 0
    await sp.assemble()
    expect(seen[0]).toEqual({})
    expect(seen[0]).not.toBe(context)
    expect(seen.every((c) => c === seen[0])).toBe(true)
  })
  it('an already aborted signal rejects with its reason before any provider runs', async () => {
    const { sp } = load()
    let called = false
    sp.variable('v', () => ((called = true), 'x'))
    const controller = new AbortController()
    const reason = new Error('stop')
    controller.abort(reason)
    await expect(sp.assemble({ signal: controller.signal })).rejects.toBe(reason)
    expect(called).toBe(false)
  })
  it('a signal aborted during the waterfall rejects with its reason', async () => {
    const { root, sp } = load()
    const controller = new AbortController()
    root.on('system-prompt/assemble', (_a, _c, next) => (controller.abort('late'), next()))
    await expect(sp.assemble({ signal: controller.signal })).rejects.toBe('late')
  })
  it('a synchronous provider throw arrives as a rejection', async () => {
    const { sp } = load()
    sp.section({
      name: 's',
      order: 1,
      text: () => {
        throw new Error('text boom')
      },
    })
    const pending = sp.assemble()
    expect(pending).toBeInstanceOf(Promise)
    await expect(pending).rejects.toThrow('text boom')
  })
  it('variable values must be strings or undefined; undefined keeps the key', async () => {
    const { sp } = load()
    const dispose = sp.variable('bad', () => 3 as never)
    await expect(sp.assemble()).rejects.toThrow(new TypeError('assembled variable "bad" must be a string or undefined'))
    dispose()
    sp.variable('none', () => undefined)
    const a = await sp.assemble()
    expect(Object.hasOwn(a.variables, 'none')).toBe(true)
    expect(a.variables.none).toBeUndefined()
  })
  it('an assemble listener may rewrite or delete variables; its changes reach the result', async () => {
    const { root, sp } = load()
    sp.variable('cwd', () => '/work')
    sp.variable('secret', () => 'hunter2')
    root.on('system-prompt/assemble', async (assembly, _c, next) => {
      assembly.variables.cwd = '/elsewhere'
      delete assembly.variables.secret
      return next()
    })
    const a = await sp.assemble()
    expect(a.variables).toEqual({ cwd: '/elsewhere' })
  })
  it('tool provider results are checked with the spec messages', async () => {
    for (const [result, message] of [
      [undefined, 'prompt tool provider must return { schemas: ToolSchema[] }'],
      [{ schemas: 'x' }, 'prompt tool provider must return { schemas: ToolSchema[] }'],
      // a function is not a result object, even one carrying a schemas array
      [Object.assign(() => {}, { schemas: [] }), 'prompt tool provider must return { schemas: ToolSchema[] }'],
      [{ schemas: [], knownNames: 'read' }, 'prompt tool provider knownNames must be an array of strings'],
      [{ schemas: [], knownNames: ['read', 7] }, 'prompt tool provider knownNames must be an array of strings'],
      [{ schemas: [{ name: '', description: '', parameters: {} }] }, 'assembled tool names must be non-empty'],
      [{ schemas: [{ description: '', parameters: {} }] }, 'assembled tool names must be non-empty'],
    ] as const) {
      const { sp } = load()
      sp.tools(() => result as never)
      await expect(sp.assemble()).rejects.toThrow(new TypeError(message))
    }
  })
  it('schemas are rebuilt: exactly name, description and cloned parameters; duplicates kept', async () => {
    const { sp } = load()
    const parameters = { type: 'object', properties: { p: { type: 'string' } } }
    const original = { name: 'dup', description: 'one', parameters, extra: true }
    sp.tools(() => ({ schemas: [original, { name: 'dup', description: 'two', parameters: {} }] }))
    const a = await sp.assemble()
    expect(a.tools).toEqual([
      { name: 'dup', description: 'one', parameters },
      { name: 'dup', description: 'two', parameters: {} },
    ])
    expect(a.tools[0]).not.toBe(original)
    expect(a.tools[0]!.parameters).not.toBe(parameters)
    expect(Object.keys(a.tools[0]!)).toEqual(['name', 'description', 'parameters'])
  })
  it('parameters that cannot be cloned reject with a DataCloneError', async () => {
    const { sp } = load()
    sp.tools(() => ({ schemas: [{ name: 'x', description: '', parameters: { f: () => 1 } }] }))
    await expect(sp.assemble()).rejects.toMatchObject({ name: 'DataCloneError' })
  })
  it('multiple complete sections reject with the names JSON-stringified', async () => {
    const { sp } = load()
    sp.section({ name: 'a', order: 1, text: 'A', complete: true })
    sp.section({ name: 'b', order: 2, text: 'B', complete: true })
    await expect(sp.assemble()).rejects.toThrow(new Error('multiple complete prompt sections are active: "a", "b"'))
  })
  it('tool order rejects before any text provider runs', async () => {
    const { sp } = load()
    let texts = 0
    sp.section({ name: 's', order: 1, text: () => (texts++, '') })
    sp.context({ name: 'c', order: 1, text: () => (texts++, '') })
    sp.tools(() => ({ schemas: [t('<unlisted-tools>')] }))
    await expect(sp.assemble()).rejects.toThrow(
      new Error('tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)'),
    )
    expect(texts).toBe(0)
  })
  it('non-string texts reject with the spec messages', async () => {
    const a = load()
    a.sp.section({ name: 's', order: 1, text: () => 1 as never })
    await expect(a.sp.assemble()).rejects.toThrow(new TypeError('assembled section "s" text must be a string'))
    const b = load()
    b.sp.context({ name: 'c', order: 1, text: () => null as never })
    await expect(b.sp.assemble()).rejects.toThrow(new TypeError('assembled context "c" text must be a string'))
  })
  it('contexts are sorted by order and empty texts are kept in the assembly', async () => {
    const { sp } = load()
    sp.context({ name: 'late', order: 20, text: 'L' })
    sp.context({ name: 'empty', order: 15, text: '' })
    sp.context({ name: 'early', order: 10, text: () => 'E' })
    expect(pairs((await sp.assemble()).contexts)).toEqual([
      ['early', 'E'],
      ['empty', ''],
      ['late', 'L'],
    ])
  })
  it('a non-object waterfall result rejects', async () => {
    const { root, sp } = load()
    root.on('system-prompt/assemble', () => undefined as never)
    await expect(sp.assemble()).rejects.toThrow(
      new TypeError('system-prompt/assemble listeners must resolve to an assembly object'),
    )
  })
  it('isolation: mutating one result never leaks into the next', async () => {
    const { sp } = load({ persona: 'p' })
    sp.tools(() => ({ schemas: [t('x')] }))
    sp.variable('v', () => 'v')
    sp.context({ name: 'c', order: 1, text: 'C' })
    const first = await sp.assemble()
    first.sections[0]!.text = 'mutated'
    first.sections.push({ name: 'extra', text: '' })
    first.contexts.length = 0
    ;(first.tools[0]!.parameters as Record<string, unknown>).type = 'string'
    first.variables.v = 'changed'
    const second = await sp.assemble()
    expect(second.sections[0]!.text).toBe('You are an AI agent powered by Bridle.')
    expect(second.sections).toHaveLength(2)
    expect(second.contexts).toHaveLength(1)
    expect(second.tools[0]!.parameters).toEqual({ type: 'object' })
    expect(second.variables.v).toBe('v')
  })
})

describe('tool ordering', () => {
  it('canonical order compares UTF-16 code units, stable for equal names, regardless of registration', async () => {
    const { sp } = load()
    sp.tools(() => ({ schemas: [t('zulu'), t('alpha'), t('mike'), t('_x'), t('Beta'), t('alpha', 'second alpha')] }))
    const a = await sp.assemble()
    expect(a.tools.map((x) => `${x.name}:${x.description}`)).toEqual([
      'Beta:Beta tool',
      '_x:_x tool',
      'alpha:alpha tool',
      'alpha:second alpha',
      'mike:mike tool',
      'zulu:zulu tool',
    ])
  })
  it('rest entry', () => {
    const collected = ['shell', 'grep_b', 'plan', 'grep_a'].map((n) => t(n))
    const ordered = orderTools(
      collected,
      ['plan', '<unlisted-tools>', 'shell'],
      new Set(['shell', 'grep_b', 'plan', 'grep_a']),
    )
    expect(ordered.map((x) => x.name)).toEqual(['plan', 'grep_a', 'grep_b', 'shell'])
  })
  it('unknown entries, single unknown entry, and (none)', () => {
    expect(() =>
      orderTools([t('plan'), t('shell')], ['plan', 'phantom', '<unlisted-tools>', 'ghost'], new Set(['plan', 'shell'])),
    ).toThrow(new Error('toolOrder lists unregistered tools "phantom", "ghost"; known tools: plan, shell'))
    expect(() => orderTools([t('b'), t('a')], ['z', '<unlisted-tools>'], new Set(['b', 'a']))).toThrow(
      new Error('toolOrder lists unregistered tool "z"; known tools: a, b'),
    )
    expect(() => orderTools([], ['z', '<unlisted-tools>'], new Set())).toThrow(
      new Error('toolOrder lists unregistered tool "z"; known tools: (none)'),
    )
  })
  it('a known name with no visible schema is allowed and contributes nothing', () => {
    expect(orderTools([t('b')], ['a', '<unlisted-tools>'], new Set(['a', 'b'])).map((x) => x.name)).toEqual(['b'])
  })
  it('the reserved name is rejected without toolOrder too', () => {
    expect(() => orderTools([t('<unlisted-tools>')], undefined, new Set())).toThrow(
      new Error('tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)'),
    )
  })
  it('validateToolOrder: first duplicate, then the missing rest entry', () => {
    expect(() => validateToolOrder(['a', 'b', 'a', 'b'])).toThrow(new Error('toolOrder lists "a" more than once'))
    expect(() => validateToolOrder(['a'])).toThrow(
      new Error('toolOrder must contain the "<unlisted-tools>" rest entry (where unlisted tools are inserted)'),
    )
    expect(() => validateToolOrder(['a', '<unlisted-tools>'])).not.toThrow()
  })
  it('with toolOrder in config: layout applies at assembly; knownNames replaces the schema names', async () => {
    const { sp } = load({ toolOrder: ['plan', '<unlisted-tools>', 'shell'] })
    sp.tools(() => ({ schemas: [t('shell'), t('grep'), t('plan')] }))
    expect((await sp.assemble()).tools.map((x) => x.name)).toEqual(['plan', 'grep', 'shell'])
    const restricted = load({ toolOrder: ['plan', '<unlisted-tools>'] })
    restricted.sp.tools(() => ({ schemas: [t('plan')], knownNames: ['other'] }))
    await expect(restricted.sp.assemble()).rejects.toThrow(
      new Error('toolOrder lists unregistered tool "plan"; known tools: other'),
    )
  })
})

describe('complete mode, waterfall and restoration', () => {
  it('complete mode: listener edits to sections are overridden, a pushed tool is kept', async () => {
    const { root, sp } = load()
    sp.section({ name: 'exact', order: 10, text: 'original', complete: true })
    sp.section({ name: 'other', order: 20, text: 'other' })
    let seen: string[] = []
    root.on(
      'system-prompt/assemble',
      (assembly, _c, next) => {
        seen = assembly.sections.map((s) => s.name)
        const exact = assembly.sections.find((s) => s.name === 'exact')!
        exact.text = 'rewritten'
        assembly.sections.push({ name: 'pushed', text: 'p' })
        assembly.tools.push(t('pushed_tool'))
        return next()
      },
      { prepend: true },
    )
    const a = await sp.assemble()
    expect(seen).toEqual(['harness:identity', 'deployment:persona', 'exact', 'other'])
    expect(a.sections).toEqual([{ name: 'exact', text: 'original' }])
    expect(a.tools.map((x) => x.name)).toEqual(['pushed_tool'])
  })
  it('with no complete section and no suppression the waterfall result itself is returned', async () => {
    const { root, sp } = load()
    const own: PromptAssembly = { sections: [], contexts: [], tools: [], variables: {} }
    root.on('system-prompt/assemble', () => own)
    expect(await sp.assemble()).toBe(own)
  })
  it('suppression is final: listener contexts are discarded; the result is a shallow copy keeping tools/variables', async () => {
    const { root, sp } = load({ includeRuntimeContext: false })
    const own = { sections: [], contexts: [{ name: 'x', text: 'X' }], tools: [], variables: {}, extra: 1 }
    root.on('system-prompt/assemble', () => own)
    const a = await sp.assemble()
    expect(a).not.toBe(own)
    expect(a.contexts).toEqual([])
    expect(a.tools).toBe(own.tools)
    expect(a.variables).toBe(own.variables)
    expect((a as unknown as { extra: number }).extra).toBe(1)
  })
  it('complete mode plus suppression gives [completeSection] and []', async () => {
    const { root, sp } = load()
    sp.section({ name: 'only', order: 1, text: 'ONLY', complete: true })
    sp.suppressRuntimeContext()
    sp.context({ name: 'c', order: 1, text: 'C' })
    root.on('system-prompt/assemble', async (_a, _c, next) => {
      const r = await next()
      r.contexts.push({ name: 'late', text: 'L' })
      return r
    })
    const a = await sp.assemble()
    expect(a.sections).toEqual([{ name: 'only', text: 'ONLY' }])
    expect(a.contexts).toEqual([])
  })
  it('listeners: untagged, own-scope and ancestor listeners run; siblings only with {global:true}', async () => {
    const { root, sp } = load()
    const parent = scopeOf(root)
    const child = scopeOf(root, parent.key)
    const sibling = scopeOf(root)
    const heard: string[] = []
    const listen =
      (label: string) => (_a: PromptAssembly, _c: AssembleContext, next: () => Promise<PromptAssembly>) => {
        heard.push(label)
        return next()
      }
    root.on('system-prompt/assemble', listen('untagged'))
    parent.scope.ctx.on('system-prompt/assemble', listen('ancestor'))
    child.scope.ctx.on('system-prompt/assemble', listen('own'))
    sibling.scope.ctx.on('system-prompt/assemble', listen('sibling'))
    sibling.scope.ctx.on('system-prompt/assemble', listen('sibling-global'), { global: true })
    await sp.assemble({ scope: child.key })
    expect(heard.sort()).toEqual(['ancestor', 'own', 'sibling-global', 'untagged'])
  })
  it('a short circuit skips inner listeners; next() is memoised; variables added by listeners render', async () => {
    const { root, sp } = load({ persona: 'in {{place}}' })
    let inner = 0
    root.on('system-prompt/assemble', (_a, _c, next) => (inner++, next()))
    root.on(
      'system-prompt/assemble',
      async (assembly, _c, next) => {
        assembly.variables.place = 'Paris'
        const first = await next()
        const second = await next()
        expect(second).toBe(first)
        return first
      },
      { prepend: true },
    )
    const a = await sp.assemble()
    expect(inner).toBe(1)
    expect(renderPrompt(a)).toBe('You are an AI agent powered by Bridle.\n\nin Paris')
    const { sp: other, root: otherRoot } = load()
    let skipped = 0
    otherRoot.on('system-prompt/assemble', (_a, _c, next) => (skipped++, next()))
    const own: PromptAssembly = { sections: [], contexts: [], tools: [], variables: {} }
    otherRoot.on('system-prompt/assemble', () => own, { prepend: true })
    expect(await other.assemble()).toBe(own)
    expect(skipped).toBe(0)
  })
  it('a listener rejection rejects assemble()', async () => {
    const { root, sp } = load()
    root.on('system-prompt/assemble', async () => {
      throw new Error('listener failed')
    })
    await expect(sp.assemble()).rejects.toThrow('listener failed')
  })
})

describe('interpolation and rendering', () => {
  const render = (text: string, variables: Record<string, string | undefined> = {}) =>
    renderPrompt({ sections: [{ name: 's', text }], variables })

  it('literal vs malformed', () => {
    expect(render('echo {{ok')).toBe('echo {{ok')
    expect(() => render('a {{ b {{cwd}}', { cwd: '/w' })).toThrow(
      new Error(
        'malformed prompt variable reference at "{{ b {{cwd}}…" in section "s" (references are complete simple {{name}} groups)',
      ),
    )
  })
  it('the … is appended even when fewer than 16 code units remain', () => {
    expect(() => render('{{a}', { a: 'x' })).not.toThrow()
    expect(() => render('x {{{a}}}', { a: 'v' })).toThrow(
      new Error(
        'malformed prompt variable reference at "{{{a}}}…" in section "s" (references are complete simple {{name}} groups)',
      ),
    )
  })
  it('values are never re-scanned', () => {
    expect(render('N: {{note}}', { note: '{{x}}' })).toBe('N: {{x}}')
  })
  it('unknown variable lists every key in insertion order, (none) when empty', () => {
    expect(() => render('{{modle}}', { model: 'm', cwd: undefined })).toThrow(
      new Error('unknown prompt variable "{{modle}}" in section "s"; registered variables: model, cwd'),
    )
    expect(() => render('{{x}}')).toThrow(
      new Error('unknown prompt variable "{{x}}" in section "s"; registered variables: (none)'),
    )
    expect(() => render('{{constructor}}')).toThrow(
      new Error('unknown prompt variable "{{constructor}}" in section "s"; registered variables: (none)'),
    )
  })
  it('malformed names: empty, spaces, uppercase, leading digit, dash, newline', () => {
    for (const inner of ['', ' cwd ', 'Cwd', '1a', 'a-b', 'a\nb']) {
      expect(() => render(`x {{${inner}}} y`)).toThrow(
        new Error(
          `malformed prompt variable reference "{{${inner}}}" in section "s" (variable names match /^[a-z][a-z0-9_]*$/)`,
        ),
      )
    }
  })
  it('a registered key without a value throws the no-value error; an empty string value is fine', () => {
    expect(() => render('{{cwd}}', { cwd: undefined })).toThrow(
      new Error('prompt variable "{{cwd}}" has no value for this assembly (section "s")'),
    )
    expect(render('[{{e}}]', { e: '' })).toBe('[]')
  })
  it('a }} without a preceding {{ is literal', () => {
    expect(render('a }} b')).toBe('a }} b')
  })
  it('contexts use the word "context" in errors', () => {
    expect(() => renderContextSnapshot({ contexts: [{ name: 'c', text: '{{nope}}' }], variables: {} })).toThrow(
      new Error('unknown prompt variable "{{nope}}" in context "c"; registered variables: (none)'),
    )
  })
  it('renderPrompt interpolates every section first, drops empty texts, keeps whitespace-only ones', () => {
    expect(
      renderPrompt({
        sections: [
          { name: 'a', text: 'A' },
          { name: 'b', text: '' },
          { name: 'c', text: ' ' },
          { name: 'd', text: '{{v}}' },
        ],
        variables: { v: '' },
      }),
    ).toBe('A\n\n ')
    expect(() =>
      renderPrompt({
        sections: [
          { name: 'first', text: '{{x}}' },
          { name: 'second', text: '{{y}}' },
        ],
        variables: {},
      }),
    ).toThrow('in section "first"')
    expect(renderPrompt({ sections: [], variables: {} })).toBe('')
  })
  it('renderContextSections maps in order and drops empty texts', () => {
    expect(
      renderContextSections({
        contexts: [
          { name: 'a', text: 'cwd: {{cwd}}' },
          { name: 'b', text: '' },
          { name: 'c', text: 'git: clean' },
        ],
        variables: { cwd: '/w' },
      }),
    ).toEqual([
      { name: 'a', text: 'cwd: /w' },
      { name: 'c', text: 'git: clean' },
    ])
  })
  it('joining, without filtering of its own', () => {
    expect(joinContextSections([{ text: 'cwd: /w' }, { text: 'git: clean' }])).toBe(
      `${HEADER}\n\ncwd: /w\n\ngit: clean`,
    )
    expect(joinContextSections([{ text: '' }, { text: '' }])).toBe(`${HEADER}\n\n\n\n`)
    expect(joinContextSections([])).toBe('')
    expect(joinContextSections([{ text: '' }])).toBe('')
    expect(
      renderContextSnapshot({
        contexts: [
          { name: 'a', text: '' },
          { name: 'b', text: '' },
        ],
        variables: {},
      }),
    ).toBe('')
  })
  it('interpolation errors are plain Errors', () => {
    for (const text of ['{{x}}', '{{X}}', '{{ {{x}}', '{{u}}']) {
      let error: unknown
      try {
        render(text, { u: undefined })
      } catch (e) {
        error = e
      }
      expect(Object.getPrototypeOf(error)).toBe(Error.prototype)
    }
  })
})
