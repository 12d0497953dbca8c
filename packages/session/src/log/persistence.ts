/**
 * Types and error classes shared with durable backends (docs/persistence.md#the-backend-contract). A backend such as
 * `@bridle/session-jsonl` implements `SessionPersistence` and provides it as `ctx.sessionPersistence`.
 */
import type { SessionEvent } from '../events/events.js'
import type { SessionHeader } from '../events/header.js'
import type { Session } from './session.js'
import type { SessionSummary } from './summary.js'

/** Where a backend keeps (or would keep) a session; never an authorization. */
export interface SessionLocation {
  readonly kind: string
  readonly path: string
}

/** A frozen view of one session's header and events. */
export interface SessionInspection {
  readonly meta: SessionHeader
  readonly events: readonly SessionEvent[]
  /**
   * Present when the stored log ended in a torn or damaged tail that this view leaves out: `inspect` reports what a
   * load would discard, `load` what it did discard. Absent for an intact log and for a live session.
   */
  readonly recovery?: SessionRecoveryReport
}

/**
 * What a backend discarded (or, for `inspect`, would discard) past the committed prefix of a stored log: a torn
 * tail after a crash, or a damaged line in the open last turn and every line after it. Line numbers are physical
 * and 1-based (a JSONL log's header is line 1); a backend without lines numbers its records the same way.
 */
export interface SessionRecoveryReport {
  readonly location: SessionLocation
  /** The first and last discarded line. */
  readonly firstLine: number
  readonly lastLine: number
  /** Complete (newline-terminated) lines discarded. */
  readonly droppedLines: number
  /** How many of those held an intact event: events lost only because they came after the damage. */
  readonly droppedEvents: number
  /** Bytes of an unterminated last line (0 when the log ended with a complete line). */
  readonly fragmentBytes: number
  /** The first damaged complete line and why; absent when the only loss is an unterminated fragment. */
  readonly defect?: { readonly line: number; readonly reason: string }
}

/** One unpublished session handed out by `ctx.sessions.prepare` or a backend's `prepare`. */
export interface SessionPreparation {
  readonly session: Session
  /** Idempotent; calls the optional release hook once. */
  [Symbol.dispose](): void
}

export interface SessionSnapshotInfo {
  readonly meta: SessionHeader
  readonly revision: string
}

export interface SessionRawLog {
  readonly header: SessionHeader
  readonly fileName: string
  readonly content: string
}

/** Options of `SessionPersistence.follow`. */
export interface SessionFollowOptions {
  /** The first seq to yield (default 0). */
  readonly from?: number
  /** Ends the iteration (quietly). */
  readonly signal?: AbortSignal
  /** How long a polling backend waits between checks when nothing new was written. */
  readonly intervalMs?: number
}

/** The durable-backend contract (`ctx.sessionPersistence`). Every method takes ids; paths never cross it. */
export interface SessionPersistence {
  locate(meta: SessionHeader): SessionLocation
  /**
   * Optional, synchronous and cheap: true when the backend already stores a session with this id. `ctx.sessions`
   * asks it when it mints a default id, so a new process never picks an id whose log is already on disk. A backend
   * that cannot answer synchronously leaves it out (default ids then only avoid the ids live in memory).
   */
  isStored?(id: string): boolean
  list(signal?: AbortSignal): Promise<readonly SessionHeader[]>
  listSnapshots(signal?: AbortSignal): Promise<readonly SessionSnapshotInfo[]>
  readRaw(id: string, signal?: AbortSignal): Promise<SessionRawLog | undefined>
  inspect(id: string, signal?: AbortSignal): Promise<SessionInspection>
  load(id: string): Promise<SessionInspection>
  prepare(id: string, signal?: AbortSignal): Promise<SessionPreparation>
  resume(id: string, signal?: AbortSignal): Promise<Session>
  /**
   * Optional: a summary of every stored session (header, event count, turns, last activity, model, first prompt), in
   * `list()` order, read without loading whole logs. `bridle sessions` uses it; without it a listing reads every log.
   */
  summaries?(signal?: AbortSignal): Promise<readonly SessionSummary[]>
  /**
   * Optional: the stored events of a session as they are written — by this process or any other — from `from` on,
   * until the signal aborts. Backends that several processes write (such as session-postgres) provide it.
   */
  follow?(id: string, options?: SessionFollowOptions): AsyncIterable<SessionEvent>
}

/** A stored log is damaged: header, scan or identity failures, or a failed validation of its events. */
export class SessionPersistenceCorruptionError extends Error {
  readonly path: string | undefined
  /** The damaged line (1-based, the header is line 1), when the damage is one line of the log. */
  readonly line: number | undefined

  constructor(message: string, options: { cause?: unknown; path?: string; line?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SessionPersistenceCorruptionError'
    this.path = options.path
    this.line = options.line
  }
}

/** A stored log uses a format this harness does not read; nothing is damaged and the raw file stays readable. */
export class SessionFormatUnsupportedError extends Error {
  readonly location: SessionLocation

  constructor(message: string, location: SessionLocation, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'SessionFormatUnsupportedError'
    this.location = location
  }
}

/**
 * Wraps one unpublished session; disposing it is idempotent and calls `release` once. Persistence uses it to
 * hand a prepared session to a caller that may never publish it.
 */
export function createSessionPreparation(session: Session, release?: () => void): SessionPreparation {
  let disposed = false
  return Object.freeze({
    session,
    [Symbol.dispose]() {
      if (disposed) return
      disposed = true
      release?.()
    },
  })
}
