import type { ToolSchema } from '@bridle/llm'
import {
  HomeService,
  type Awaitable,
  NamedEntries,
  ScopedLayers,
  scopeTarget,
  type ScopeKey,
  type Scoped,
} from '@bridle/scope'
import type {} from '@bridle/system-prompt'
import type { Context } from 'cordis'

import { compileTool, toolSchemaOf, toolSchemaViewOf, type CompiledTool } from './definition.js'
import { prepareCall, readArguments, type PipelineHost } from './pipeline.js'
import type {
  PostToolDecision,
  PreparedToolCall,
  PreToolDecision,
  ToolDefinition,
  ToolExecution,
  ToolExecutionInput,
  ToolExecutionMode,
  ToolExecutionResult,
  ToolReturn,
  ToolRunContext,
} from './types.js'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
  interface Events<C extends Context = Context> {
    /**
     * Every successful registration and every removal; no arguments, no carrier, so every listener hears it.
     * `system-prompt/change` follows each one, because a tool is part of what the model sees.
     */
    'tools/change'(): void
    /** Waterfall, scope-filtered: may deny a call. Listeners cannot change arguments. */
    'tools/pre-execute'(
      this: Scoped<ToolRegistry>,
      exec: ToolExecution,
      next: () => Promise<PreToolDecision>,
    ): Awaitable<PreToolDecision>
    /** Waterfall, scope-filtered: wraps the body; `next()` runs it and yields its raw return value. */
    'tools/execute'(
      this: Scoped<ToolRegistry>,
      exec: ToolRunContext,
      next: () => Promise<ToolReturn>,
    ): Awaitable<ToolReturn>
    /** Waterfall, scope-filtered: may accept (optionally rewriting content) or block the outcome. */
    'tools/post-execute'(
      this: Scoped<ToolRegistry>,
      exec: ToolExecution,
      result: ToolExecutionResult,
      next: () => Promise<PostToolDecision>,
    ): Awaitable<PostToolDecision>
    /** Observe-only, scope-filtered: the final result. Listener failures are logged and contained. */
    'tools/result'(this: Scoped<ToolRegistry>, exec: ToolExecution, result: ToolExecutionResult): void
  }
}

interface ToolLayer {
  readonly tools: NamedEntries<CompiledTool>
  isEmpty(): boolean
}

function createLayer(scope: ScopeKey | undefined): ToolLayer {
  const tools = new NamedEntries<CompiledTool>((name) =>
    scope === undefined
      ? new Error(
          `tool "${name}" is already registered (for a per-agent variant, register through that agent's \`agent.ctx\` instead)`,
        )
      : new Error(`tool "${name}" is already registered in this scope`),
  )
  return { tools, isEmpty: () => tools.isEmpty() }
}

/**
 * One notification of a tool registration or removal: `tools/change`, then `system-prompt/change` (a tool is part of
 * what the model sees, so it notifies like any prompt contribution). Both always fire, so the two counts stay
 * equal; a listener throw is rethrown afterwards (the first one wins), which rolls a registration back.
 */
function notifyToolChange(home: Context): void {
  let failure: { error: unknown } | undefined
  for (const event of ['tools/change', 'system-prompt/change'] as const) {
    try {
      home.emit(event)
    } catch (error) {
      failure ??= { error }
    }
  }
  if (failure) throw failure.error
}

/**
 * `ctx.tools`: tool definitions and their model-facing schemas, the feed into prompt assembly, and the per-call
 * pipeline (parse → validate → `tools/pre-execute` → `tools/execute` → `tools/post-execute` → `tools/result`).
 * The scheduler that runs one assistant message's calls lives in `@bridle/agent-loop` and drives `prepare`.
 */
export class ToolRegistry extends HomeService {
  static inject = ['systemPrompt']

  private readonly layers: ScopedLayers<ToolLayer>
  private readonly host: PipelineHost

  constructor(ctx: Context) {
    super(ctx, 'tools', undefined)
    this.layers = new ScopedLayers<ToolLayer>(createLayer, () => notifyToolChange(this.home))
    this.host = {
      hookContext: ctx,
      carrier: (agent) => scopeTarget(this, agent) as object,
      resolve: (name, agent) => this.lookup(name, agent),
    }
    // What `schemas(c.scope)` returns, minus its copies: assembly clones every schema's parameters anyway.
    ctx.systemPrompt.tools((c) => ({ schemas: this.visible(c.scope).map(toolSchemaViewOf) }))
  }

  /**
   * Registers a tool in the caller's layer (untagged context → global, `agent.ctx` → that agent) and returns its
   * idempotent disposer; the plugin unloading or the agent's scope being disposed removes it too. Validation and
   * schema conversion run first and throw `TypeError`; a duplicate name in the same layer throws `Error`. Either way
   * nothing is registered or emitted. Registration and removal each emit `tools/change`, then `system-prompt/change`.
   */
  register<A>(definition: ToolDefinition<A>): () => void {
    const compiled = compileTool(definition as ToolDefinition)
    return this.layers.effect(this.ctx, (layer) => layer.tools.insert(compiled.name, compiled))
  }

  /** The compiled tool `scope` sees under `name`: nearest chain layer first, then the global layer. */
  private lookup(name: string, scope: ScopeKey | undefined): CompiledTool | undefined {
    const chain = this.layers.chainLayers(scope)
    for (let i = chain.length - 1; i >= 0; i--) {
      const found = chain[i]!.tools.get(name)
      if (found !== undefined) return found
    }
    return this.layers.global.tools.get(name)
  }

  /** The definition as `scope` sees it (a frozen copy taken at registration), or `undefined`. */
  get(name: string, scope?: ScopeKey): Readonly<ToolDefinition> | undefined {
    return this.lookup(name, scope)?.definition
  }

  /**
   * Fresh `ToolSchema` copies of every tool `scope` can see: global entries in registration order (a scoped shadow
   * takes its global slot), then scope-only entries. Assembly reorders them canonically, so this order never
   * reaches the model.
   */
  schemas(scope?: ScopeKey): ToolSchema[] {
    return this.visible(scope).map(toolSchemaOf)
  }

  /** The compiled tools `scope` sees, in the order `schemas(scope)` lists them. */
  private visible(scope: ScopeKey | undefined): CompiledTool[] {
    return [...this.layers.merge(scope, (layer) => layer.tools).values()]
  }

  /**
   * `'parallel'` only when the tool is visible to `input.agent`, its arguments parse and validate, and
   * `concurrencySafe` is `true` or a predicate returning exactly `true` for them; anything else is `'exclusive'`.
   */
  executionMode(input: ToolExecutionInput): ToolExecutionMode {
    try {
      const tool = this.lookup(input.name, input.agent)
      if (tool === undefined) return 'exclusive'
      const safe = tool.definition.concurrencySafe
      if (safe === undefined || safe === false) return 'exclusive'
      const args = readArguments(tool, input)
      if (!args.ok) return 'exclusive'
      if (safe === true) return 'parallel'
      return safe(args.value) === true ? 'parallel' : 'exclusive'
    } catch {
      return 'exclusive'
    }
  }

  /**
   * Runs stages 1–5 of one call and returns its staged form (docs/tool-calls.md#the-staged-form). Rejects only on
   * malformed input.
   */
  prepare(input: ToolExecutionInput): Promise<PreparedToolCall> {
    return prepareCall(this.host, input)
  }

  /**
   * Runs the whole pipeline for one call and resolves with its final result. Tool errors become `isError` results,
   * never rejections. Writes no session events: only the agent loop turns results into `tool/result`.
   */
  async execute(input: ToolExecutionInput): Promise<ToolExecutionResult> {
    const prepared = await this.prepare(input)
    if (prepared.stage === 'dispatch') await prepared.dispatch()
    return prepared.finalize()
  }
}
