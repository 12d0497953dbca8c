import type { SystemSectionRecord } from '@bridle/session'
import type { SystemSpan } from '../types.js'

/** Paragraphs of the system string (sections are joined by a blank line), for a header without a manifest. */
function paragraphs(system: string): SystemSpan[] {
  const spans: SystemSpan[] = []
  let at = 0
  while (at < system.length) {
    const next = system.indexOf('\n\n', at)
    const end = next === -1 ? system.length : next
    spans.push({ start: at, end })
    at = end + 2
  }
  return spans
}

/**
 * The system string cut into spans: the named sections of the header's manifest (as `reconstructRequest` read and
 * checked it) (and, unnamed, whatever text lies between or
 * around them), or unnamed paragraphs when the header recorded no usable manifest.
 */
export function systemSpans(system: string, manifest: readonly SystemSectionRecord[] | undefined): SystemSpan[] {
  if (manifest === undefined) return paragraphs(system)
  const spans: SystemSpan[] = []
  let at = 0
  const gap = (end: number) => {
    // separators between sections belong to none; only text that is not a bare separator gets its own span
    if (system.slice(at, end).trim() !== '') spans.push({ start: at, end })
  }
  for (const entry of manifest) {
    gap(entry.start)
    spans.push({
      name: entry.name,
      ...(entry.order !== undefined ? { order: entry.order } : {}),
      ...(entry.scope !== undefined ? { scope: entry.scope } : {}),
      start: entry.start,
      end: entry.end,
    })
    at = entry.end
  }
  gap(system.length)
  return spans
}

/** The named span holding character `offset`, if any. */
export function sectionAt(spans: readonly SystemSpan[], offset: number): string | undefined {
  return spans.find((s) => s.name !== undefined && offset >= s.start && offset < s.end)?.name
}
