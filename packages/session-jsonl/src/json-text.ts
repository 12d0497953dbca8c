/**
 * JSON text for records of any depth. `JSON.stringify` recurses and throws `RangeError` (stack overflow) a few
 * thousand levels deep, so a record that deep could never be written: its batch would fail on every retry and the
 * session would never save again. Appends refuse such data (the session's JSON limit), but a session may still hold
 * it (a log written before the limit, a seed adopted from persistence); those records are written by an iterative
 * serializer that produces the same text.
 */

import { writeJsonIteratively } from '@bridle/session'

/**
 * `JSON.stringify(value)`, falling back to an iterative serializer when the native one overflows the stack. The
 * fallback writes exactly what `JSON.stringify` writes for plain records and arrays: keys in insertion order,
 * strings and numbers via `JSON.stringify`, `undefined` members of objects skipped and of arrays written as `null`.
 */
export function stringifyRecord(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error
    return stringifyIteratively(value)
  }
}

/** The explicit-stack serializer (see {@link stringifyRecord}). */
export function stringifyIteratively(value: unknown): string {
  return writeJsonIteratively(value, { sortKeys: false })
}
