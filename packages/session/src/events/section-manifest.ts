/**
 * Section provenance of a logged system string: the `sections` manifest of `request/header`, which says which prompt
 * section produced which span of `header.system`, so a reader names sections and cache breaks from the log alone.
 * The format is described in this package's README ("Section manifest").
 */
import { sha256Hex } from '../json/canonical.js'

/** One section's span in the system string of a `request/header`. */
export interface SystemSectionRecord {
  /** The prompt section's name, e.g. `deployment:persona`. */
  readonly name: string
  /** Its registered order; absent when a `system-prompt/assemble` listener built the section. */
  readonly order?: number
  /** `'global'` or `'scoped'` (an agent's or a parent scope's override); absent like `order`. */
  readonly scope?: 'global' | 'scoped'
  /** `system.slice(start, end)` is the section's rendered text (UTF-16 code unit offsets). */
  readonly start: number
  readonly end: number
  /** SHA-256 (hex) of that text. */
  readonly digest: string
}

/** A span as the renderer reports it (structurally `PromptSpan` of `@bridle/system-prompt`). */
export interface SystemSectionSpan {
  readonly name: string
  readonly order?: number
  readonly scope?: 'global' | 'scoped'
  readonly start: number
  readonly end: number
}

/** How a section differs between two requests' manifests. */
export interface SectionChange {
  readonly kind: 'added' | 'removed' | 'moved' | 'changed'
  readonly name: string
}

/** The manifest to log for `system`: each span with the digest of its text. */
export function sectionManifest(system: string, spans: readonly SystemSectionSpan[]): SystemSectionRecord[] {
  return spans.map((span) => ({
    name: span.name,
    ...(span.order !== undefined ? { order: span.order } : {}),
    ...(span.scope !== undefined ? { scope: span.scope } : {}),
    start: span.start,
    end: span.end,
    digest: sha256Hex(system.slice(span.start, span.end)),
  }))
}

const isOffset = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * The manifest a `request/header` recorded for `system`, or `undefined` when it recorded none (logs written before
 * manifests existed) or one that does not fit the string: spans out of range, overlapping or out of order, a
 * malformed entry, or a digest that does not match its span's text. A reader then names sections some other way.
 */
export function readSectionManifest(system: string, raw: unknown): readonly SystemSectionRecord[] | undefined {
  if (!Array.isArray(raw)) return undefined
  let at = 0
  for (const entry of raw as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return undefined
    const { name, order, scope, start, end, digest } = entry as Record<string, unknown>
    if (typeof name !== 'string' || name === '' || !isOffset(start) || !isOffset(end)) return undefined
    if (start < at || end < start || end > system.length) return undefined
    if (order !== undefined && (typeof order !== 'number' || !Number.isFinite(order))) return undefined
    if (scope !== undefined && scope !== 'global' && scope !== 'scoped') return undefined
    if (typeof digest !== 'string' || digest !== sha256Hex(system.slice(start, end))) return undefined
    at = end
  }
  return raw as readonly SystemSectionRecord[]
}

/** Names of `a` and `b` that keep their relative order: one longest common subsequence. */
function stayingInOrder(a: readonly string[], b: readonly string[]): Set<string> {
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!)
    }
  }
  const stay = new Set<string>()
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      stay.add(a[i]!)
      i++
      j++
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++
    else j++
  }
  return stay
}

/**
 * What changed from `previous` to `current`, by section name: `added` and `removed`; `changed` when the text's
 * digest differs; `moved` when a section no longer keeps its place relative to the others (the fewest sections
 * that explain the new order). A section can be both moved and changed. Entries follow the current order, then
 * the removed sections in their previous order. Empty when the two manifests describe the same sections.
 */
export function sectionChanges(
  previous: readonly SystemSectionRecord[],
  current: readonly SystemSectionRecord[],
): SectionChange[] {
  const before = new Map(previous.map((s) => [s.name, s]))
  const after = new Map(current.map((s) => [s.name, s]))
  const stay = stayingInOrder(
    previous.filter((s) => after.has(s.name)).map((s) => s.name),
    current.filter((s) => before.has(s.name)).map((s) => s.name),
  )
  const changes: SectionChange[] = []
  for (const section of current) {
    const old = before.get(section.name)
    if (old === undefined) {
      changes.push({ kind: 'added', name: section.name })
      continue
    }
    if (!stay.has(section.name)) changes.push({ kind: 'moved', name: section.name })
    if (old.digest !== section.digest) changes.push({ kind: 'changed', name: section.name })
  }
  for (const section of previous) if (!after.has(section.name)) changes.push({ kind: 'removed', name: section.name })
  return changes
}

/** The section whose span holds character `offset` of the system string, if any (separators belong to none). */
export function sectionAt(sections: readonly SystemSectionRecord[], offset: number): SystemSectionRecord | undefined {
  return sections.find((s) => offset >= s.start && offset < s.end)
}
