import type { Context } from 'cordis'
import {
  reconstructRequest,
  sectionAt,
  type CachePrefixRow,
  type SessionEvent,
  type SessionHeader,
} from '@bridle/session'
import type { SectionOfLine } from './cache.js'
import { knownSections } from './known-sections.js'
import { attributeSections, type KnownSection } from './sections.js'

/** Character offset where 1-based `line` of `text` starts (its end when the text has fewer lines). */
function lineOffset(text: string, line: number): number {
  let at = 0
  for (let i = 1; i < line; i++) {
    const next = text.indexOf('\n', at)
    if (next === -1) return text.length
    at = next + 1
  }
  return at
}

/**
 * Names the section a broken request's first differing system line falls in, for rows the section manifests
 * could not explain (a log written before manifests, or one resumed across that change): from the request's own
 * manifest when it has one, else by matching the app's sections rendered for that request's route (a section may
 * render {{provider}} or {{model}}; one assembly per route). The app is booted (`appContext`) only in that case.
 */
export async function lineSectionNamer(
  rows: readonly CachePrefixRow[],
  events: readonly SessionEvent[],
  appContext: () => Promise<Context>,
  meta: SessionHeader,
): Promise<SectionOfLine> {
  const knownByRoute = new Map<string, KnownSection[]>()
  const names = new Map<CachePrefixRow, string | undefined>()
  for (const row of rows) {
    if (row.system?.kept !== false || row.system.sections !== undefined) continue
    const rebuilt = reconstructRequest(events, { turn: row.turn, step: row.step })
    const system = rebuilt.header.system ?? ''
    const line = row.system.firstDifferingLine
    if (rebuilt.sections) {
      names.set(row, sectionAt(rebuilt.sections, lineOffset(system, line))?.name)
      continue
    }
    const config = rebuilt.header.config as unknown as Record<string, unknown>
    const route = { provider: String(config.provider), model: String(config.model) }
    const key = JSON.stringify(route)
    let known = knownByRoute.get(key)
    if (known === undefined) knownByRoute.set(key, (known = await knownSections(await appContext(), meta, route)))
    let start = 0
    for (const section of attributeSections(system, known)) {
      const end = start + section.text.split('\n').length
      if (line > start && line <= end) names.set(row, section.name)
      start = end + 1
    }
  }
  return (row) => names.get(row)
}
