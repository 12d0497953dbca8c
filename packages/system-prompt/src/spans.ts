import { interpolate } from './interpolate.js'
import type { AssembledSection, PromptAssembly } from './types.js'

/** Where an assembled section came from: its registered `order`, and whether the global layer or a scope held it. */
export interface SectionOrigin {
  readonly order: number
  /** `'global'`: the global layer; `'scoped'`: the assembled scope's layer or one of its ancestors' (an override). */
  readonly scope: 'global' | 'scoped'
}

/**
 * Origins are kept beside the assembly, keyed by the section object, so `AssembledSection` keeps its
 * `{ name, text }` shape. A section a `system-prompt/assemble` listener builds anew has no origin; one it passes
 * through (or edits in place) keeps its own.
 */
const origins = new WeakMap<object, SectionOrigin>()

/** Records the origin of a section `assemble()` built. Package-private. */
export function recordSectionOrigin(section: AssembledSection, origin: SectionOrigin): void {
  origins.set(section, origin)
}

/** The registered `order` and layer of a section from `assemble()`, or `undefined` for one a listener built. */
export function sectionOrigin(section: AssembledSection): SectionOrigin | undefined {
  return origins.get(section)
}

/**
 * The span one section occupies in a rendered system string: `text.slice(start, end)` is its interpolated text.
 * Offsets are UTF-16 code units (JavaScript string indices). `order` and `scope` are absent for a section a
 * `system-prompt/assemble` listener built without passing an assembled one through.
 */
export interface PromptSpan {
  readonly name: string
  readonly order?: number
  readonly scope?: 'global' | 'scoped'
  readonly start: number
  readonly end: number
}

/** A rendered system string and the span of every section that contributed to it, in string order. */
export interface RenderedPrompt {
  readonly text: string
  readonly spans: readonly PromptSpan[]
}

/**
 * `renderPrompt` that also says which section produced which part of the string. `text` is exactly
 * `renderPrompt(assembly)` (same interpolation, same first error, same blank-line join); a section whose text
 * renders empty is dropped and has no span, and the `\n\n` separators belong to no span.
 */
export function renderPromptSpans(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedPrompt {
  const texts = assembly.sections.map((section) => interpolate(section, assembly.variables, 'section'))
  const spans: PromptSpan[] = []
  let text = ''
  texts.forEach((piece, index) => {
    if (piece.length === 0) return
    if (text.length > 0) text += '\n\n'
    const section = assembly.sections[index]!
    const origin = origins.get(section)
    const start = text.length
    text += piece
    spans.push({
      name: section.name,
      // -0 is not lossless JSON, and the span is logged
      ...(origin !== undefined ? { order: origin.order === 0 ? 0 : origin.order, scope: origin.scope } : {}),
      start,
      end: text.length,
    })
  })
  return { text, spans }
}
