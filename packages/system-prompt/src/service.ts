import { HomeService, type Awaitable, type Scoped, type ScopeKey, ScopedLayers } from '@bridle/scope'
import type { Context } from 'cordis'
import { assemble } from './assemble.js'
import { type SystemPromptConfig, type SystemPromptConfigInput, parseSystemPromptConfig } from './config.js'
import {
  HARNESS_SOURCE_ORDER,
  HARNESS_SOURCE_SECTION,
  harnessSourceText,
  IDENTITY_ORDER,
  IDENTITY_SECTION,
  IDENTITY_TEXT,
  PERSONA_ORDER,
  PERSONA_SECTION,
} from './constants.js'
import { PromptLayer } from './layer.js'
import { EntryOwners, ownerOf, type EntryOwner } from './owners.js'
import { checkToolProvider, checkVariable, copyEntry } from './registration.js'
import type {
  AssembleContext,
  Disposer,
  PromptAssembly,
  PromptContext,
  PromptSection,
  ToolProvider,
  VariableProvider,
} from './types.js'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
  interface Events<C extends Context = Context> {
    /**
     * Waterfall around every assembly, scope-filtered (`this` is the carrier). Listeners get the shared `assembly`,
     * the caller's `context` and their own memoised `next`.
     */
    'system-prompt/assemble'(
      this: Scoped<SystemPrompt>,
      assembly: PromptAssembly,
      context: AssembleContext,
      next: () => Promise<PromptAssembly>,
    ): Awaitable<PromptAssembly>
    /** Fires once after every successful registration and once after every disposal. Unfiltered, no payload. */
    'system-prompt/change'(): void
  }
}

/**
 * The `ctx.systemPrompt` service: registrable sections, runtime contexts, tool providers and variables, kept in
 * scoped layers, and the one-shot `assemble()` that turns them into a `PromptAssembly` at every step.
 *
 * Every registration method is an effect of the *calling* context: it writes to that context's scope layer (the
 * global layer when untagged), returns the upstream disposer, and is undone when the caller's fiber is disposed.
 */
export class SystemPrompt extends HomeService<SystemPromptConfig> {
  /** Parses and validates a raw config (a plain function: upstream calls it unbound). */
  static Config: (raw?: SystemPromptConfigInput | null) => SystemPromptConfig = parseSystemPromptConfig

  /** The registry tables; `system-prompt/change` is emitted on the service's own context. */
  protected readonly layers: ScopedLayers<PromptLayer>
  /** Who registered each named entry (duplicate messages and `ownerOf`). */
  private readonly owners = new EntryOwners()

  constructor(ctx: Context, config?: SystemPromptConfigInput | null) {
    super(ctx, 'systemPrompt', parseSystemPromptConfig(config))
    this.layers = new ScopedLayers<PromptLayer>(
      (scope) => new PromptLayer(scope),
      () => ctx.emit('system-prompt/change'),
    )
    if (this.config.includeHarnessIdentity) {
      this.section({ name: IDENTITY_SECTION, order: IDENTITY_ORDER, text: IDENTITY_TEXT })
    }
    if (this.config.harnessSource !== undefined) {
      this.section({
        name: HARNESS_SOURCE_SECTION,
        order: HARNESS_SOURCE_ORDER,
        text: harnessSourceText(this.config.harnessSource),
      })
    }
    this.section({ name: PERSONA_SECTION, order: PERSONA_ORDER, text: this.config.persona })
    if (!this.config.includeRuntimeContext) this.suppressRuntimeContext()
  }

  /** Registers a system section in the caller's layer. Throws (registering nothing) on invalid input or duplicates. */
  section(section: PromptSection): Disposer {
    const entry = copyEntry('section', section)
    const owner = ownerOf(this.ctx)
    return this.layers.effect(this.ctx, (layer) => this.owners.insert(layer.sections, entry.name, entry, owner))
  }

  /** Registers a runtime context in the caller's layer. Same rules as `section`, with "context" in messages. */
  context(context: PromptContext): Disposer {
    const entry = copyEntry('context', context)
    const owner = ownerOf(this.ctx)
    return this.layers.effect(this.ctx, (layer) => this.owners.insert(layer.contexts, entry.name, entry, owner))
  }

  /** Suppresses runtime contexts for the caller's scope view until every visible suppressor is disposed. */
  suppressRuntimeContext(): Disposer {
    return this.layers.effect(this.ctx, (layer) => layer.suppressors.append(true))
  }

  /** Registers a tool provider, called once per assembly; providers accumulate and are never shadowed. */
  tools(provider: ToolProvider): Disposer {
    checkToolProvider(provider)
    return this.layers.effect(this.ctx, (layer) => layer.toolProviders.append(provider))
  }

  /** Registers a `{{name}}` variable provider; the nearest layer's provider for a name is the only one evaluated. */
  variable(name: string, provider: VariableProvider): Disposer {
    checkVariable(name, provider)
    const owner = ownerOf(this.ctx)
    return this.layers.effect(this.ctx, (layer) => this.owners.insert(layer.variables, name, provider, owner))
  }

  /**
   * The plugin that registered the section, context or variable `name` effective for `scope` (the global view when
   * absent): for messages that name a contribution and should say where it came from.
   */
  ownerOf(kind: 'section' | 'context' | 'variable', name: string, scope?: ScopeKey): EntryOwner | undefined {
    const table = kind === 'section' ? 'sections' : kind === 'context' ? 'contexts' : 'variables'
    const view = [this.layers.global, ...this.layers.chainLayers(scope)].reverse()
    const layer = view.find((candidate) => candidate[table].has(name))
    return layer === undefined ? undefined : this.owners.get(layer[table], name)
  }

  /**
   * Assembles sections, contexts, tools and variables for `context.scope` (global view when absent), then runs
   * the `system-prompt/assemble` waterfall. Providers and listeners receive exactly `context` (a fresh `{}` when
   * omitted). Every failure is a rejection.
   */
  async assemble(context?: AssembleContext): Promise<PromptAssembly> {
    return assemble({ layers: this.layers, toolOrder: this.config.toolOrder, ctx: this.ctx, base: this }, context ?? {})
  }
}
