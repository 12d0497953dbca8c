import type { ContextSnapshotSection } from '@bridle/llm'
import { RUNTIME_CONTEXT_HEADER } from './constants.js'
import { interpolate } from './interpolate.js'
import type { PromptAssembly } from './types.js'

/**
 * Renders the system prompt string from an assembly's sections and variables.
 *
 * Every section is interpolated first (the first error in section order propagates), then empty texts are dropped
 * (whitespace-only texts are kept) and the rest joined with a blank line. Returns `''` when nothing remains.
 * Tools are never rendered here.
 */
export function renderPrompt(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): string {
  const texts = assembly.sections.map((section) => interpolate(section, assembly.variables, 'section'))
  return texts.filter((text) => text.length > 0).join('\n\n')
}

/**
 * Interpolates every runtime context, in order, into `{ name, text }` entries and drops those whose text is empty.
 * The result feeds the snapshot message's `sections` and `joinContextSections`.
 */
export function renderContextSections(
  assembly: Pick<PromptAssembly, 'contexts' | 'variables'>,
): ContextSnapshotSection[] {
  const out: ContextSnapshotSection[] = []
  for (const context of assembly.contexts) {
    const text = interpolate(context, assembly.variables, 'context')
    if (text.length > 0) out.push({ name: context.name, text })
  }
  return out
}

/**
 * Joins context texts with a blank line under `RUNTIME_CONTEXT_HEADER`. An empty body gives `''`.
 * Does no filtering of its own: callers pass already-rendered entries.
 */
export function joinContextSections(sections: readonly { readonly text: string }[]): string {
  const body = sections.map((section) => section.text).join('\n\n')
  return body === '' ? '' : `${RUNTIME_CONTEXT_HEADER}\n\n${body}`
}

/** The user-role runtime-context snapshot text: `joinContextSections(renderContextSections(assembly))`. */
export function renderContextSnapshot(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): string {
  return joinContextSections(renderContextSections(assembly))
}
