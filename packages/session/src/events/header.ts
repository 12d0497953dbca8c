/**
 * The session header (docs/surface-and-reconstruction.md#the-session-header): lives outside the log and records
 * identity, creation time, working directory and fork lineage.
 */
import { isAbsolute } from 'node:path'
import { deepFreeze, JSON_LIMITS, JsonLimitError, type SessionId } from '@bridle/llm'
import { jsonViolationError, snapshotWithinLimits } from '../json/json.js'

export const SESSION_FORMAT_VERSION = 0

export interface SessionHeader {
  readonly version: 0
  readonly id: SessionId
  readonly createdAt: number
  readonly cwd?: string
  readonly parentSession?: SessionId
  /** How many events a forked child inherited (fork lineage). Not `firstLiveSeq`. */
  readonly seedLength?: number
  readonly [extra: string]: unknown
}

/** `snapshot` copies the caller's input; `restore` adopts a value persistence handed over. */
export type HeaderMode = 'snapshot' | 'restore'

const isNonNegativeSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0)

/**
 * Validates `input` as the header of session `id` and returns a detached deep-frozen header.
 * Snapshot mode first requires lossless JSON; restore mode first requires a `null`/`Object.prototype` prototype.
 * Throws `Error` naming the field that is wrong. Unknown extra keys are kept.
 */
export function validateSessionHeader(input: unknown, id: string, mode: HeaderMode): SessionHeader {
  let header: unknown = input
  if (mode === 'snapshot') {
    const snap = snapshotWithinLimits(input, JSON_LIMITS)
    if (!snap.ok) {
      if ('limit' in snap) throw new JsonLimitError('session header', snap.limit)
      throw new Error('session header is not losslessly JSON-serializable', {
        cause: jsonViolationError(snap.violation),
      })
    }
    header = snap.value
  } else {
    const proto = typeof input === 'object' && input !== null ? Object.getPrototypeOf(input) : undefined
    if (proto !== null && proto !== Object.prototype) throw new Error('session header is not a plain JSON record')
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new Error('session header is not a plain JSON record')
  }
  const h = header as Record<string, unknown>
  if (h.version !== SESSION_FORMAT_VERSION)
    throw new Error(`session header version must be 0, got ${String(h.version)}`)
  if (h.id !== id) throw new Error(`session header id "${String(h.id)}" does not match session id "${id}"`)
  if (!isNonNegativeSafeInteger(h.createdAt))
    throw new Error('session header createdAt must be a non-negative safe integer')
  if (h.cwd !== undefined) {
    if (typeof h.cwd !== 'string') throw new Error('session header cwd must be a string')
    if (!isAbsolute(h.cwd)) throw new Error(`session header cwd must be an absolute path, got "${h.cwd}"`)
  }
  if (h.parentSession !== undefined && typeof h.parentSession !== 'string') {
    throw new Error('session header parentSession must be a string')
  }
  if (h.seedLength !== undefined && !isNonNegativeSafeInteger(h.seedLength)) {
    throw new Error('session header seedLength must be a non-negative safe integer')
  }
  // Snapshot mode already holds a private copy; restore mode clones so the header never aliases the caller's object.
  return deepFreeze(mode === 'restore' ? structuredClone(h) : h) as SessionHeader
}
