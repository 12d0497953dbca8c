/**
 * Fork boundaries (docs/surface-and-reconstruction.md#forks): which prefix of a live session a child inherits, and the
 * coded errors of `ctx.sessions.branch`.
 */
import type { AnySessionEvent } from '../events/events.js'

export type SessionForkErrorCode =
  | 'SESSION_ALREADY_EXISTS'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_NOT_LIVE'
  | 'INVALID_BOUNDARY'
  | 'OPEN_TURN'

/** Thrown by `ctx.sessions.branch`; `code` says which check failed. */
export class SessionForkError extends Error {
  readonly code: SessionForkErrorCode

  constructor(message: string, code: SessionForkErrorCode) {
    super(message)
    this.name = 'SessionForkError'
    this.code = code
  }
}

/** The identity errors of `branch`, in check order. */
export const forkErrors = {
  exists: (id: string) => new SessionForkError(`session "${id}" already exists`, 'SESSION_ALREADY_EXISTS'),
  notFound: (id: string) => new SessionForkError(`session "${id}" not found`, 'SESSION_NOT_FOUND'),
  notLive: (id: string) => new SessionForkError(`session "${id}" is not the live store instance`, 'SESSION_NOT_LIVE'),
}

/**
 * Returns `events[0 ..= boundary]` after checking the boundary: a non-negative safe integer that exists, matches a
 * contiguous seq, and does not end inside an open turn. Defaults to the last seq; an empty log gives `[]`.
 */
export function forkPrefix(id: string, events: readonly AnySessionEvent[], boundary?: number): AnySessionEvent[] {
  if (boundary === undefined) {
    if (events.length === 0) return []
    boundary = events.length - 1
  }
  const b = boundary as unknown
  if (typeof b !== 'number' || !Number.isSafeInteger(b) || b < 0) {
    throw new SessionForkError(
      `fork boundary for session "${id}" must be a non-negative safe integer, got ${String(b)}`,
      'INVALID_BOUNDARY',
    )
  }
  if (b >= events.length) {
    const last = events.length === 0 ? 'none' : String(events.length - 1)
    throw new SessionForkError(
      `fork boundary ${b} does not exist in session "${id}" (last seq: ${last})`,
      'INVALID_BOUNDARY',
    )
  }
  if (events[b]!.seq !== b) {
    throw new SessionForkError(
      `fork boundary ${b} does not match a contiguous event seq in session "${id}"`,
      'INVALID_BOUNDARY',
    )
  }
  for (let i = b; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/end') break
    if (event.type === 'turn/start') {
      const turn = (event.data as { turn?: unknown } | null)?.turn
      throw new SessionForkError(
        `fork boundary ${b} in session "${id}" ends inside open turn ${String(turn)}`,
        'OPEN_TURN',
      )
    }
  }
  return events.slice(0, b + 1)
}
