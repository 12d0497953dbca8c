import type { ScopeKey } from '@bridle/scope'
import type { ToolSchema } from '@bridle/llm'

/**
 * What one assembly is *for*. Providers and `system-prompt/assemble` listeners receive the very object passed
 * to `assemble()`. Open to declaration merging (the agent loop adds `agent`).
 */
export interface AssembleContext {
  /** The scope whose view is assembled; absent means the global view only. */
  scope?: ScopeKey
  /** Cancellation for this assembly; honoured on entry and after the waterfall. */
  signal?: AbortSignal
  /**
   * A dry assembly: a check of what a step would assemble, with no step after it (the CLI's boot and reload checks).
   * Runtime contexts whose text is a function are not called and are left out of `contexts`, so a context provider
   * runs exactly once per step; fixed context texts are kept. Every other provider and listener still runs, and can
   * tell a dry assembly by this flag.
   */
  dry?: boolean
}

/** A fixed text, or a function evaluated once per assembly. */
export type TextSource = string | ((context: AssembleContext) => string)

/** A system-prompt section: stable instructions placed by `order`. */
export interface PromptSection {
  readonly name: string
  readonly order: number
  readonly text: TextSource
  /** When `true`, this section is the entire system prompt for the scopes where it is effective. */
  readonly complete?: boolean
}

/** A runtime context: a snapshot of the environment, rendered into a user-role message. */
export interface PromptContext {
  readonly name: string
  readonly order: number
  readonly text: TextSource
}

/** A section after its text source was resolved; not yet interpolated. */
export interface AssembledSection {
  name: string
  text: string
}

/** A context after its text source was resolved; not yet interpolated. */
export interface AssembledContext {
  name: string
  text: string
}

/** What a tool provider returns for one assembly. */
export interface ToolProviderResult {
  readonly schemas: readonly ToolSchema[]
  /** Every tool name this provider knows, visible or not; replaces the schema names for `toolOrder` checks. */
  readonly knownNames?: readonly string[]
}

/** Called once per assembly with the assembly's context. */
export type ToolProvider = (context: AssembleContext) => ToolProviderResult

/** Returns the variable's value for this assembly, or `undefined` for "no value". */
export type VariableProvider = (context: AssembleContext) => string | undefined

/** The one-shot result of `assemble()`. */
export interface PromptAssembly {
  sections: AssembledSection[]
  contexts: AssembledContext[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}

/** Undoes exactly one registration; synchronous and idempotent. */
export type Disposer = () => void
