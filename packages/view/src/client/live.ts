import { useEffect, useRef, useState } from 'preact/hooks'
import type { SessionView } from '../types.js'
import type { Change, DataSource } from './data.js'

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; error: string }
  | { state: 'ready'; value: T; version: number }

/**
 * Loads with `load` and loads again whenever the server reports a change that `affects` the data (and once on
 * `ready`, so nothing written between the first read and the subscription is missed). Loads never overlap: a
 * change during a load schedules exactly one more. A load that returns the object already shown (the data source
 * hands back an unchanged answer as the same object) renders nothing again: a long session is not laid out twice.
 */
export function useLive<T>(
  data: DataSource,
  key: string,
  load: () => Promise<T>,
  affects: (change: Change) => boolean,
  session?: string,
): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' })
  const version = useRef(0)
  useEffect(() => {
    let live = true
    let running = false
    let again = false
    let shown: T | undefined
    setLoaded({ state: 'loading' })
    const run = async () => {
      if (running) return void (again = true)
      running = true
      do {
        again = false
        try {
          const value = await load()
          if (live && value !== shown) {
            shown = value
            setLoaded({ state: 'ready', value, version: ++version.current })
          }
        } catch (error) {
          shown = undefined
          if (live) setLoaded({ state: 'error', error: error instanceof Error ? error.message : String(error) })
        }
      } while (again && live)
      running = false
    }
    void run()
    const stop = data.subscribe((change) => {
      if (change.kind === 'ready' || affects(change)) void run()
    }, session)
    return () => {
      live = false
      stop()
    }
  }, [key])
  return loaded
}

/** One session's view, loaded again whenever the server reports that session changed (session and request pages). */
export function useLiveSession(data: DataSource, id: string): Loaded<SessionView> {
  return useLive(
    data,
    `session:${id}`,
    () => data.session(id),
    (c) => c.kind === 'session' && c.id === id,
    id,
  )
}
