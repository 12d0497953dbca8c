import { useEffect, useState } from 'preact/hooks'

export type Route =
  | { page: 'sessions' }
  | { page: 'session'; id: string }
  | { page: 'request'; id: string; seq: number }

/** Routes live in the URL's fragment, so a file opened from disk navigates like the served page. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent)
  if (parts[0] === 'session' && parts[1] !== undefined) {
    if (parts[2] === 'request' && /^\d+$/.test(parts[3] ?? ''))
      return { page: 'request', id: parts[1], seq: Number(parts[3]) }
    return { page: 'session', id: parts[1] }
  }
  return { page: 'sessions' }
}

export const sessionHref = (id: string) => `#/session/${encodeURIComponent(id)}`
export const requestHref = (id: string, seq: number) => `${sessionHref(id)}/request/${seq}`

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}
