import { sha256Hex, type AnySessionEvent } from '@bridle/session'
import type { SystemSpan } from '../types.js'

interface ManifestEntry {
  name: string
  order?: number
  scope?: string
  start: number
  end: number
  digest: string
}

const isOffset = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * The section manifest a `request/header` recorded for its system string (which section produced which span), or
 * `undefined` for a header without one (logs written before manifests) or with one that does not fit the string —
 * spans out of range or order, or a digest that does not match its text. The page then shows unnamed spans.
 */
export function headerManifest(event: AnySessionEvent | undefined, system: string): ManifestEntry[] | undefined {
  const raw = (event?.data as { sections?: unknown } | undefined)?.sections
  if (!Array.isArray(raw)) return undefined
  let at = 0
  for (const entry of raw as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return undefined
    const { name, start, end, digest } = entry as Record<string, unknown>
    if (typeof name !== 'string' || name === '' || !isOffset(start) || !isOffset(end)) return undefined
    if (start < at || end < start || end > system.length) return undefined
    if (typeof digest !== 'string' || digest !== sha256Hex(system.slice(start, end))) return undefined
    at = end
  }
  return raw as ManifestEntry[]
}

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
 * The system string cut into spans: the manifest's named sections (and, unnamed, whatever text lies between or
 * around them), or unnamed paragraphs when the header recorded no usable manifest.
 */
export function systemSpans(system: string, manifest: readonly ManifestEntry[] | undefined): SystemSpan[] {
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
