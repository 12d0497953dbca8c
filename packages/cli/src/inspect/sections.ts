import type { SystemSectionRecord } from '@bridle/session'

/** A named section text the system string may contain. */
export interface KnownSection {
  name: string
  text: string
}

export interface AttributedSection {
  /** The section's name, or `undefined` when no known section produced this paragraph. */
  name: string | undefined
  text: string
  /** From the log's manifest: the section's registered order and layer (absent for a listener-built section). */
  order?: number
  scope?: 'global' | 'scoped'
}

/** The sections of a logged system string as its header's manifest records them (`readSectionManifest`). */
export function sectionsFromManifest(system: string, manifest: readonly SystemSectionRecord[]): AttributedSection[] {
  return manifest.map((s) => ({
    name: s.name,
    text: system.slice(s.start, s.end),
    ...(s.order !== undefined ? { order: s.order } : {}),
    ...(s.scope !== undefined ? { scope: s.scope } : {}),
  }))
}

/**
 * Splits a logged system string back into its sections, for a log whose headers carry no section manifest (written
 * before manifests existed): names come from `known` — the app's sections rendered now — matched at each position;
 * a paragraph no known section produced is returned unnamed rather than guessed.
 */
export function attributeSections(system: string, known: readonly KnownSection[]): AttributedSection[] {
  const out: AttributedSection[] = []
  const candidates = known.filter((s) => s.text !== '').sort((a, b) => b.text.length - a.text.length)
  let at = 0
  while (at < system.length) {
    const hit = candidates.find(
      (s) =>
        system.startsWith(s.text, at) &&
        (at + s.text.length === system.length || system.startsWith('\n\n', at + s.text.length)),
    )
    const end = hit
      ? at + hit.text.length
      : (() => {
          const next = system.indexOf('\n\n', at)
          return next === -1 ? system.length : next
        })()
    out.push({ name: hit?.name, text: system.slice(at, end) })
    at = end + 2
  }
  return out
}
