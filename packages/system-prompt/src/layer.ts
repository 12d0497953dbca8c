import { AnonymousEntries, NamedEntries, type ScopeKey, type ScopeLayer } from '@bridle/scope'
import type { PromptContext, PromptSection, ToolProvider, VariableProvider } from './types.js'

/** A section as stored: a shallow copy taken at registration, so later mutation of the caller's object is inert. */
export interface StoredSection {
  readonly name: string
  readonly order: number
  readonly text: PromptSection['text']
  readonly complete: boolean
}

/** A context as stored (shallow copy). */
export interface StoredContext {
  readonly name: string
  readonly order: number
  readonly text: PromptContext['text']
}

/** Marker value of one runtime-context suppressor. */
export type Suppressor = true

/**
 * One scope's (or the global) registry tables: three named ones that shadow along the chain and two anonymous
 * ones that accumulate. Duplicate messages differ between the global layer (which points at `agent.ctx` for a
 * per-agent override) and a scoped one.
 */
export class PromptLayer implements ScopeLayer {
  readonly sections: NamedEntries<StoredSection>
  readonly contexts: NamedEntries<StoredContext>
  readonly variables: NamedEntries<VariableProvider>
  readonly suppressors = new AnonymousEntries<Suppressor>()
  readonly toolProviders = new AnonymousEntries<ToolProvider>()

  constructor(scope: ScopeKey | undefined) {
    const global = scope === undefined
    const duplicate = (what: string, override: string) => (name: string) =>
      new Error(
        global
          ? `${what} "${name}" is already registered ` +
              `(for a per-agent ${override}, register through that agent's \`agent.ctx\` instead)`
          : `${what} "${name}" is already registered in this scope`,
      )
    this.sections = new NamedEntries(duplicate('prompt section', 'override'))
    this.contexts = new NamedEntries(duplicate('prompt context', 'override'))
    this.variables = new NamedEntries(duplicate('prompt variable', 'value'))
  }

  /** True when all five tables are empty; an empty scoped layer is reclaimed at once. */
  isEmpty(): boolean {
    return (
      this.sections.isEmpty() &&
      this.contexts.isEmpty() &&
      this.variables.isEmpty() &&
      this.suppressors.isEmpty() &&
      this.toolProviders.isEmpty()
    )
  }
}
