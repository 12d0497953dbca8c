import type { SessionHeader, SessionPersistence } from '@bridle/session'
import { RuntimeFailure } from './errors.js'

/** The word that names the newest stored session wherever an id is taken. */
export const LATEST = 'latest'

/** The stored session `bridle sessions` lists first: the newest by creation time (ids break ties). */
function newest(headers: readonly SessionHeader[]): SessionHeader | undefined {
  let best: SessionHeader | undefined
  for (const h of headers) {
    if (best === undefined || h.createdAt > best.createdAt || (h.createdAt === best.createdAt && h.id > best.id))
      best = h
  }
  return best
}

/**
 * The stored session a user means by `text`: the session with that exact id, else `latest` (the newest, the first
 * row of `bridle sessions`), else the one session whose id starts with `text`. A missing session, or a prefix that
 * several ids share (they are listed), is a runtime failure (exit 1, as for any session the store does not have).
 */
export async function resolveSessionId(persistence: SessionPersistence, text: string): Promise<string> {
  const headers = await persistence.list()
  if (headers.some((h) => h.id === text)) return text
  if (text === LATEST) {
    const found = newest(headers)
    if (found === undefined) throw new RuntimeFailure('no session is stored yet, so "latest" names none')
    return found.id
  }
  const matches = text === '' ? [] : headers.filter((h) => h.id.startsWith(text)).map((h) => h.id)
  if (matches.length === 1) return matches[0]!
  if (matches.length === 0)
    throw new RuntimeFailure(`session "${text}" not found (bridle sessions lists the stored ones)`)
  const shown = matches.sort().slice(0, 5)
  const more = matches.length > shown.length ? `, and ${matches.length - shown.length} more` : ''
  throw new RuntimeFailure(
    `session "${text}" is ambiguous: ${matches.length} stored ids start with it (${shown.join(', ')}${more}); type more of the id`,
  )
}
