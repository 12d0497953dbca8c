/**
 * Issue 13: the model input is a function of what is loaded, never of when.
 *
 * A property over random sets of plugins — sections and runtime contexts with colliding orders, scoped shadows
 * (through an agent-like scope), tools from `ctx.tools` and from tool providers, variables, runtime-context
 * suppressors — loaded in a random permutation, then put through a random sequence of unloads, loads and hot
 * reloads. After every operation the live app must render exactly what a fresh app with the same set of plugins,
 * loaded in another random order, renders: the system string, the tools, the runtime snapshot and the canonical
 * request header, byte for byte, for the global view and the agent's view. And each operation must emit exactly
 * one `system-prompt/change` per contribution it applied or undid.
 */
import { createScope } from '@bridle/scope'
import { canonicalHeader, canonicalJson } from '@bridle/session'
import {
  renderContextSnapshot,
  renderPrompt,
  SystemPrompt,
  type AssembleContext,
  type PromptAssembly,
} from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context, type ForkScope } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const SEED = 1_300_013
const NUM_RUNS = 40

/** Where a contribution is registered: the plugin's own (global) context, or the agent's scope under it. */
type Layer = 'global' | 'agent'

type Contribution =
  | { kind: 'section'; layer: Layer; name: string; order: number; text: string; provider: boolean; uses?: string }
  | { kind: 'context'; layer: Layer; name: string; order: number; text: string; provider: boolean }
  | { kind: 'variable'; layer: Layer; name: string; value: string }
  | { kind: 'registry-tool'; layer: Layer; name: string }
  | { kind: 'provider-tools'; layer: Layer; names: string[] }
  | { kind: 'suppress'; layer: Layer }

interface PluginSpec {
  readonly id: number
  readonly contributions: readonly Contribution[]
}

type Op = { kind: 'toggle' | 'reload'; plugin: number }

/** The agent every assembly of the scoped view is for (one scope key, shared by every app of a run). */
const agentKey = { session: { id: 'agent', header: { cwd: '/w' } } }

// Names mix upper case, `_`, `-`, `:` and digits so code-unit order (not locale order) is exercised.
const nameArb = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_:-]{0,4}$/)
const varNameArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,3}$/)
const toolNameArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,5}$/)
// Few distinct orders, including the built-ins' -100 and 0: ties are the rule, not the exception.
const orderArb = fc.constantFrom(-100, 0, 0, 5, 5, 5, 10, 12.5)
const layerArb = fc.constantFrom<Layer>('global', 'global', 'agent')

/**
 * A random world: plugin count, then named entries with unique names per layer (as registration requires), each
 * assigned to a plugin. Scoped names are drawn partly from the global ones (shadows), `deployment:persona` included.
 */
const worldArb = fc.integer({ min: 1, max: 6 }).chain((count) => {
  const owner = fc.nat({ max: count - 1 })
  const named = <T>(names: fc.Arbitrary<string[]>, extra: fc.Arbitrary<T>) =>
    names.chain((list) =>
      fc.tuple(...list.map((name) => fc.tuple(fc.constant(name), owner, extra))).map((rows) => rows),
    )
  const entry = fc.record({ order: orderArb, provider: fc.boolean(), text: fc.stringMatching(/^[a-z ]{0,8}$/) })
  return fc
    .record({
      sections: fc.uniqueArray(nameArb, { maxLength: 6 }),
      contexts: fc.uniqueArray(nameArb, { maxLength: 4 }),
      variables: fc.uniqueArray(varNameArb, { maxLength: 4 }),
      registryTools: fc.uniqueArray(toolNameArb, { maxLength: 5 }),
      providerTools: fc.uniqueArray(toolNameArb, { maxLength: 5 }),
    })
    .chain((names) => {
      const pick = (pool: string[], fresh: fc.Arbitrary<string>) =>
        fc.uniqueArray(pool.length > 0 ? fc.oneof(fc.constantFrom(...pool), fresh) : fresh, { maxLength: 4 })
      const registryPool = names.registryTools.filter((n) => !names.providerTools.includes(n))
      return fc.record({
        count: fc.constant(count),
        sections: named(fc.constant(names.sections), entry),
        scopedSections: named(pick([...names.sections, 'deployment:persona'], nameArb), entry),
        contexts: named(fc.constant(names.contexts), entry),
        scopedContexts: named(pick(names.contexts, nameArb), entry),
        variables: named(fc.constant(names.variables), fc.stringMatching(/^[a-z]{0,5}$/)),
        scopedVariables: named(pick(names.variables, varNameArb), fc.stringMatching(/^[A-Z]{0,5}$/)),
        registryTools: named(fc.constant(registryPool), fc.constant(null)),
        // scoped registry tools may shadow global ones; they never take a provider tool's name
        scopedRegistryTools: named(
          pick(
            registryPool,
            toolNameArb.filter((n) => !names.providerTools.includes(n)),
          ),
          fc.constant(null),
        ),
        providerTools: named(fc.constant(names.providerTools.filter((n) => !registryPool.includes(n))), layerArb),
        suppressors: fc.array(fc.tuple(owner, layerArb), { maxLength: 2 }),
        // a section sometimes uses one of its own plugin's global variables
        uses: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      })
    })
})

type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never

/** Groups a world's entries into one spec per plugin (contributions in a fixed, generated order). */
function pluginsOf(world: World): PluginSpec[] {
  const plugins: Contribution[][] = Array.from({ length: world.count }, () => [])
  const ownVariables = (plugin: number) => world.variables.filter(([, owner]) => owner === plugin).map(([name]) => name)
  let nth = 0
  const section =
    (layer: Layer) =>
    ([name, plugin, e]: [string, number, { order: number; provider: boolean; text: string }]) => {
      const vars = ownVariables(plugin)
      const uses = world.uses[nth++ % world.uses.length] && vars.length > 0 ? vars[nth % vars.length] : undefined
      plugins[plugin]!.push({
        kind: 'section',
        layer,
        name,
        order: e.order,
        provider: e.provider,
        text: `${layer} ${name}: ${e.text}`,
        uses,
      })
    }
  world.sections.forEach(section('global'))
  world.scopedSections.forEach(section('agent'))
  const context =
    (layer: Layer) =>
    ([name, plugin, e]: [string, number, { order: number; provider: boolean; text: string }]) =>
      plugins[plugin]!.push({
        kind: 'context',
        layer,
        name,
        order: e.order,
        provider: e.provider,
        text: `${layer} ${name}: ${e.text}`,
      })
  world.contexts.forEach(context('global'))
  world.scopedContexts.forEach(context('agent'))
  for (const [name, plugin, value] of world.variables)
    plugins[plugin]!.push({ kind: 'variable', layer: 'global', name, value })
  for (const [name, plugin, value] of world.scopedVariables)
    plugins[plugin]!.push({ kind: 'variable', layer: 'agent', name, value })
  for (const [name, plugin] of world.registryTools)
    plugins[plugin]!.push({ kind: 'registry-tool', layer: 'global', name })
  for (const [name, plugin] of world.scopedRegistryTools)
    plugins[plugin]!.push({ kind: 'registry-tool', layer: 'agent', name })
  for (const [name, plugin, layer] of world.providerTools)
    plugins[plugin]!.push({ kind: 'provider-tools', layer, names: [name] })
  for (const [plugin, layer] of world.suppressors) plugins[plugin]!.push({ kind: 'suppress', layer })
  return plugins.map((contributions, id) => ({ id, contributions }))
}

/** A fresh plugin object for `spec` (a hot reload imports a new module, so every load gets a new object). */
function pluginOf(spec: PluginSpec) {
  return {
    name: `plugin-${spec.id}`,
    inject: ['systemPrompt', 'tools'],
    apply(ctx: Context) {
      let agentCtx: Context | undefined
      const target = (layer: Layer) => (layer === 'global' ? ctx : (agentCtx ??= createScope(ctx, agentKey).ctx))
      for (const c of spec.contributions) {
        const on = target(c.layer)
        if (c.kind === 'section' || c.kind === 'context') {
          const body = c.kind === 'section' && c.uses !== undefined ? `${c.text} [{{${c.uses}}}]` : c.text
          const text = c.provider ? () => body : body
          if (c.kind === 'section') on.systemPrompt.section({ name: c.name, order: c.order, text })
          else on.systemPrompt.context({ name: c.name, order: c.order, text })
        } else if (c.kind === 'variable') {
          on.systemPrompt.variable(c.name, () => c.value)
        } else if (c.kind === 'registry-tool') {
          on.tools.register({
            name: c.name,
            description: `${c.layer} registry tool ${c.name}`,
            parameters: { type: 'object', properties: { [c.name]: { type: 'string' } } },
            execute: () => '',
          })
        } else if (c.kind === 'provider-tools') {
          const schemas = c.names.map((name) => ({
            name,
            description: `${c.layer} provided tool ${name}`,
            parameters: { type: 'object', properties: { q: { type: 'number' } } },
          }))
          on.systemPrompt.tools(() => ({ schemas }))
        } else {
          on.systemPrompt.suppressRuntimeContext()
        }
      }
    },
  }
}

/** An app: the two services, then plugins loaded and unloaded by id, counting `system-prompt/change`. */
class App {
  readonly root = new Context()
  readonly loaded = new Map<number, ForkScope>()
  changes = 0
  toolChanges = 0

  constructor() {
    this.root.plugin(SystemPrompt, { persona: 'Persona with {{agent_name}}.' })
    this.root.plugin(ToolRegistry)
    this.root.systemPrompt.variable('agent_name', () => 'Bridle')
    this.root.on('system-prompt/change', () => void this.changes++)
    this.root.on('tools/change', () => void this.toolChanges++)
  }

  load(spec: PluginSpec): void {
    const fork = this.root.plugin(pluginOf(spec))
    if (fork.error) throw fork.error
    this.loaded.set(spec.id, fork)
  }

  unload(id: number): void {
    this.loaded.get(id)!.dispose()
    this.loaded.delete(id)
  }

  /** The bytes the model would see, for the global view and the agent's view. */
  async render(): Promise<Record<string, string>> {
    const out: Record<string, string> = {}
    for (const [view, context] of [
      ['global', {}],
      ['agent', { scope: agentKey }],
    ] as const) {
      const assembly: PromptAssembly = await this.root.systemPrompt.assemble(context as AssembleContext)
      const system = renderPrompt(assembly)
      const header = canonicalHeader({ config: { provider: 'mock', model: 'm1' }, system, tools: assembly.tools })
      out[`${view} system`] = system
      out[`${view} tools`] = JSON.stringify(assembly.tools)
      out[`${view} snapshot`] = renderContextSnapshot(assembly)
      out[`${view} header`] = canonicalJson(header)
    }
    return out
  }
}

/** How many prompt contributions loading (or unloading) `spec` applies (or undoes). */
const effectsOf = (spec: PluginSpec) => spec.contributions.length
const registryToolsOf = (spec: PluginSpec) => spec.contributions.filter((c) => c.kind === 'registry-tool').length

/** A fresh app with exactly `ids` loaded, in the order given by `keys` (a random sort key per plugin). */
async function freshRender(
  plugins: PluginSpec[],
  ids: readonly number[],
  keys: number[],
): Promise<Record<string, string>> {
  const app = new App()
  for (const id of [...ids].sort((a, b) => keys[a]! - keys[b]! || a - b)) app.load(plugins[id]!)
  return app.render()
}

describe('issue 13: order-free and HMR-safe', () => {
  it('property: any load order and any unload/reload history render byte-identically to a fresh boot of the same set; one change event per effect', async () => {
    const scenarioArb = worldArb.chain((world) =>
      fc.record({
        world: fc.constant(world),
        initial: fc.shuffledSubarray(
          Array.from({ length: world.count }, (_, i) => i),
          { minLength: 0 },
        ),
        ops: fc.array(
          fc.record({
            kind: fc.constantFrom<Op['kind']>('toggle', 'reload'),
            plugin: fc.nat({ max: world.count - 1 }),
          }),
          { maxLength: 8 },
        ),
        keys: fc.array(fc.integer(), { minLength: world.count, maxLength: world.count }),
      }),
    )
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ world, initial, ops, keys }) => {
        const plugins = pluginsOf(world)
        const app = new App()
        // A fresh boot per distinct set is enough (booting a cordis app is the slow part of this test).
        const fresh = new Map<string, Promise<Record<string, string>>>()
        const freshFor = (ids: number[]) => {
          const key = [...ids].sort((a, b) => a - b).join(',')
          if (!fresh.has(key)) fresh.set(key, freshRender(plugins, ids, keys))
          return fresh.get(key)!
        }
        const check = async (label: string, expectedChanges: number, expectedToolChanges: number) => {
          expect(app.changes, `${label}: system-prompt/change count`).toBe(expectedChanges)
          expect(app.toolChanges, `${label}: tools/change count`).toBe(expectedToolChanges)
          expect(await app.render(), label).toEqual(await freshFor([...app.loaded.keys()]))
        }
        let changes = app.changes
        let toolChanges = app.toolChanges
        for (const id of initial) {
          app.load(plugins[id]!)
          changes += effectsOf(plugins[id]!)
          toolChanges += registryToolsOf(plugins[id]!)
        }
        await check(`initial load ${initial.join(',')}`, changes, toolChanges)
        for (const [i, op] of ops.entries()) {
          const spec = plugins[op.plugin]!
          const loaded = app.loaded.has(op.plugin)
          if (loaded) app.unload(op.plugin)
          if (!loaded || op.kind === 'reload') app.load(spec)
          const applied = (loaded ? 1 : 0) + (!loaded || op.kind === 'reload' ? 1 : 0)
          changes += applied * effectsOf(spec)
          toolChanges += applied * registryToolsOf(spec)
          await check(`op ${i} (${op.kind} plugin-${op.plugin})`, changes, toolChanges)
        }
        // and once more against the reversed live load order
        const reversed = new App()
        for (const id of [...app.loaded.keys()].reverse()) reversed.load(plugins[id]!)
        expect(await reversed.render()).toEqual(await app.render())
        // unloading everything leaves exactly a fresh app, and undoes every remaining effect
        for (const id of [...app.loaded.keys()]) {
          changes += effectsOf(plugins[id]!)
          toolChanges += registryToolsOf(plugins[id]!)
          app.unload(id)
        }
        await check('all unloaded', changes, toolChanges)
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    )
  })
})
