/**
 * One way a race can be lost: subscribes `lose` (called with the error the race rejects with) and returns the undo.
 * It may call `lose` at once (a signal that is already aborted); a throw while subscribing loses the race with it.
 */
export type RaceLoser = (lose: (error: unknown) => void) => () => void

/**
 * Runs `start()` and settles with its result, unless one of `losers` fires first. Losers subscribe in order, and none
 * after one has fired; `start` runs only once all are subscribed. Whichever settles first wins, and every subscription
 * is undone right then. A result that arrives after the race was lost is handed to `discard`, so nothing it holds
 * leaks (a prepared session's lock, a connection).
 */
export function raceAgainst<T>(
  losers: readonly RaceLoser[],
  start: () => Promise<T>,
  discard: (late: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const undos: (() => void)[] = []
    const finish = (settle: () => void): boolean => {
      if (settled) return false
      settled = true
      for (const undo of undos) undo()
      settle()
      return true
    }
    const lose = (error: unknown): void => {
      finish(() => reject(error))
    }
    for (const loser of losers) {
      let undo: () => void
      try {
        undo = loser(lose)
      } catch (error) {
        lose(error)
        return
      }
      if (settled) {
        undo()
        return
      }
      undos.push(undo)
    }
    let pending: Promise<T>
    try {
      pending = start()
    } catch (error) {
      lose(error)
      return
    }
    pending.then((value) => {
      if (!finish(() => resolve(value))) discard(value)
    }, lose)
  })
}

/** A {@link RaceLoser} for `signal`: lost at once when it is already aborted, else when it aborts. */
export function abortLoser(signal: AbortSignal | undefined, errorOf: () => unknown): RaceLoser {
  return (lose) => {
    if (signal === undefined) return () => {}
    if (signal.aborted) {
      lose(errorOf())
      return () => {}
    }
    const onAbort = () => lose(errorOf())
    signal.addEventListener('abort', onAbort, { once: true })
    return () => signal.removeEventListener('abort', onAbort)
  }
}
