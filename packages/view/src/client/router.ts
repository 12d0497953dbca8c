import { useEffect, useState } from 'preact/hooks'
import { requestLabel } from './format.js'

export type Route =
  | { page: 'sessions' }
  | { page: 'session'; id: string }
  /** A request by the label its page shows (`3.1`, `3.1.2`), or by the seq of its digest in older links. */
  | { page: 'request'; id: string; label: string }
  | { page: 'request'; id: string; seq: number }
  | { page: 'not-found'; path: string }

/** A request's label as it appears in a URL: `turn.step` or `turn.step.attempt`. */
const LABEL = /^\d+\.\d+(?:\.\d+)?$/

/**
 * Routes live in the URL's fragment, so a file opened from disk navigates like the served page: `#/` (the sessions),
 * `#/session/ID`, `#/session/ID/request/3.1`; anything else is a page that does not exist.
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '')
  let parts: string[]
  try {
    parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    return { page: 'not-found', path }
  }
  if (parts.length === 0) return { page: 'sessions' }
  if (parts[0] === 'session' && parts[1] !== undefined) {
    if (parts.length === 2) return { page: 'session', id: parts[1] }
    if (parts.length === 4 && parts[2] === 'request') {
      const at = parts[3]!
      if (LABEL.test(at)) return { page: 'request', id: parts[1], label: at }
      if (/^\d+$/.test(at)) return { page: 'request', id: parts[1], seq: Number(at) }
    }
  }
  return { page: 'not-found', path }
}

export const sessionHref = (id: string) => `#/session/${encodeURIComponent(id)}`
export const requestHref = (id: string, request: { turn: number; step: number; attempt: number }) =>
  `${sessionHref(id)}/request/${requestLabel(request)}`

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}
