import type { ToolSchema } from '@bridle/llm'
import { type ScopedLayers, scopeTarget, waterfall } from '@bridle/scope'
import type { Context } from 'cordis'
import { cloneParameters } from './clone-parameters.js'
import { compareCodeUnits, orderTools } from './tool-order.js'
import type { PromptLayer, StoredContext, StoredSection } from './layer.js'
import { recordSectionOrigin } from './spans.js'
import type { AssembleContext, AssembledContext, AssembledSection, PromptAssembly, TextSource } from './types.js'

/** What one assembly needs from the service. */
export interface AssemblyHost {
  /** The registry tables. */
  readonly layers: ScopedLayers<PromptLayer>
  /** `config.toolOrder`, already validated at load. */
  readonly toolOrder: readonly string[] | undefined
  /** The context the waterfall is dispatched on. */
  readonly ctx: Context
  /** The `base` of the dispatch carrier (the service as seen by the caller). */
  readonly base: object
}

/**
 * Variables of the view: global table, then each chain layer, each iterated live; a name is evaluated only in the
 * nearest layer that currently has it, so shadowed providers never run and key order is evaluation order.
 */
function collectVariables(
  layers: readonly PromptLayer[],
  context: AssembleContext,
): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = {}
  const shadowed = (name: string, from: number) => {
    for (let i = from; i < layers.length; i++) if (layers[i]!.variables.has(name)) return true
    return false
  }
  layers.forEach((layer, index) => {
    for (const [name, provider] of layer.variables.entries()) {
      if (shadowed(name, index + 1)) continue
      const value: unknown = provider(context)
      if (value !== undefined && typeof value !== 'string') {
        throw new TypeError(`assembled variable "${name}" must be a string or undefined`)
      }
      Object.defineProperty(vars, name, { value, enumerable: true, writable: true, configurable: true })
    }
  })
  return vars
}

/** Calls every tool provider of the snapshot once and rebuilds each schema with cloned parameters (`structuredClone` semantics). */
function collectTools(
  layers: readonly PromptLayer[],
  context: AssembleContext,
): { tools: ToolSchema[]; knownNames: Set<string> } {
  const providers = layers.flatMap((layer) => [...layer.toolProviders.values()])
  const tools: ToolSchema[] = []
  const knownNames = new Set<string>()
  for (const provider of providers) {
    const result: unknown = provider(context)
    const schemas = (result as { schemas?: unknown } | null)?.schemas
    if (typeof result !== 'object' || result === null || !Array.isArray(schemas)) {
      throw new TypeError('prompt tool provider must return { schemas: ToolSchema[] }')
    }
    const own: string[] = []
    for (const schema of schemas as unknown[]) {
      const { name, description, parameters } = (schema ?? {}) as Partial<ToolSchema>
      if (typeof name !== 'string' || name === '') throw new TypeError('assembled tool names must be non-empty')
      const cloned = cloneParameters(parameters) as ToolSchema['parameters']
      tools.push({ name, description: description as string, parameters: cloned })
      own.push(name)
    }
    const known: unknown = (result as { knownNames?: unknown }).knownNames
    if (known !== undefined && (!Array.isArray(known) || known.some((n) => typeof n !== 'string'))) {
      throw new TypeError('prompt tool provider knownNames must be an array of strings')
    }
    for (const name of (known as string[] | undefined) ?? own) knownNames.add(name)
  }
  return { tools, knownNames }
}

/**
 * Total order of the effective entries: `order` ascending, then `name` by code units. Names are unique in a merged
 * view, so no tie is left to registration (load) order: the result depends only on which entries are effective.
 */
function sortByOrder<T extends { readonly order: number; readonly name: string }>(entries: Iterable<T>): T[] {
  return [...entries].sort((a, b) => a.order - b.order || compareCodeUnits(a.name, b.name))
}

/** Resolves one text source with the assembly's context; a non-string result rejects the assembly. */
function resolveText(kind: 'section' | 'context', name: string, text: TextSource, context: AssembleContext): string {
  const value: unknown = typeof text === 'function' ? text(context) : text
  if (typeof value !== 'string') throw new TypeError(`assembled ${kind} "${name}" text must be a string`)
  return value
}

/**
 * Builds one `PromptAssembly` for `context`, in this order: abort check, chain snapshot, suppression,
 * variables, named snapshots, tools, section sort, complete check, tool order, section texts, context texts, the
 * `system-prompt/assemble` waterfall, result guards and post-waterfall restoration. Every failure is a rejection.
 */
export async function assemble(host: AssemblyHost, context: AssembleContext): Promise<PromptAssembly> {
  const signal = context.signal
  if (signal?.aborted) throw signal.reason
  const scope = context.scope
  const view = [host.layers.global, ...host.layers.chainLayers(scope)]
  const suppressed = view.some((layer) => !layer.suppressors.isEmpty())

  const variables = collectVariables(view, context)
  const sectionByName = host.layers.merge(scope, (layer) => layer.sections)
  const contextByName = host.layers.merge(scope, (layer) => layer.contexts)
  const collected = collectTools(view, context)

  const sortedSections: StoredSection[] = sortByOrder(sectionByName.values())
  const complete = sortedSections.filter((section) => section.complete)
  if (complete.length > 1) {
    const names = complete.map((section) => JSON.stringify(section.name)).join(', ')
    throw new Error(`multiple complete prompt sections are active: ${names}`)
  }
  const tools = orderTools(collected.tools, host.toolOrder, collected.knownNames)

  let completeSection: AssembledSection | undefined
  const sections: AssembledSection[] = sortedSections.map((section) => {
    const text = resolveText('section', section.name, section.text, context)
    const origin = {
      order: section.order,
      scope: host.layers.global.sections.get(section.name) === section ? ('global' as const) : ('scoped' as const),
    }
    if (section.complete) recordSectionOrigin((completeSection = { name: section.name, text }), origin)
    const assembled = { name: section.name, text }
    recordSectionOrigin(assembled, origin)
    return assembled
  })

  // a dry assembly calls no context provider: a provider's side effects belong to the steps that use its text
  const contexts: AssembledContext[] = suppressed
    ? []
    : sortByOrder<StoredContext>(contextByName.values())
        .filter((entry) => context.dry !== true || typeof entry.text !== 'function')
        .map((entry) => ({
          name: entry.name,
          text: resolveText('context', entry.name, entry.text, context),
        }))

  const assembly: PromptAssembly = { sections, contexts, tools, variables }
  const result: unknown = await waterfall(
    host.ctx,
    scopeTarget(host.base, scope),
    'system-prompt/assemble',
    assembly,
    context,
    () => Promise.resolve(assembly),
  )
  if (typeof result !== 'object' || result === null) {
    throw new TypeError('system-prompt/assemble listeners must resolve to an assembly object')
  }
  if (signal?.aborted) throw signal.reason
  return restore(result as PromptAssembly, completeSection, suppressed)
}

/**
 * Post-waterfall restoration: the result itself when nothing is forced; otherwise a shallow copy whose `sections`
 * is `[completeSection]` (complete mode) and whose `contexts` is `[]` (suppressed).
 */
function restore(
  result: PromptAssembly,
  completeSection: AssembledSection | undefined,
  suppressed: boolean,
): PromptAssembly {
  if (completeSection === undefined && !suppressed) return result
  const restored: PromptAssembly = { ...result }
  if (completeSection !== undefined) restored.sections = [completeSection]
  if (suppressed) restored.contexts = []
  return restored
}
